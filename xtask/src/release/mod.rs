//! `cargo xtask release` (docs/releasing.md): checks that the workspace can be released
//! as a set of crates, then (without `--dry-run`) bumps the version, dates the
//! changelog, commits and tags. It never publishes: it prints the
//! `cargo publish` commands, in order, for a person to run.
//!
//! Every check runs before anything is changed, and all failed preconditions
//! are reported together. See docs/releasing.md.

mod audit;
mod bump;
mod changelog;
mod date;
mod git;
mod metadata;
mod order;
mod package;
mod version;
pub(crate) mod workspace;

#[cfg(test)]
mod synthetic;

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::tidy;
use changelog::Plan;
use version::Version;
use workspace::Workspace;

/// What `cargo xtask release` was asked to do (its `--help` is this type's).
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
#[command(
    about = "Check, package, bump, date the changelog and tag (never publishes)",
    long_about = "Checks that the workspace can be released, packages it, then (without \
                  --dry-run) bumps the version, dates CHANGELOG.md, commits and tags. It never \
                  publishes: it prints the `cargo publish` commands, in order (docs/releasing.md)."
)]
pub struct Options {
    /// Check and package only; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// The version to release (default: the workspace version)
    #[arg(long, value_name = "X.Y.Z")]
    pub version: Option<Version>,
    /// Skip the slow verifying build of each package
    #[arg(long)]
    pub no_verify: bool,
    /// With --dry-run: skip the clean-tree check (for development)
    #[arg(long)]
    pub allow_dirty: bool,
    /// Release the workspace at DIR (default: this one)
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

impl Options {
    /// The options, or why they do not go together.
    fn checked(&self) -> Result<&Options> {
        if self.allow_dirty && !self.dry_run {
            bail!(
                "--allow-dirty only goes with --dry-run: a release commits and tags what is \
                 committed, so uncommitted work would not be in it"
            );
        }
        Ok(self)
    }
}

/// Runs the release of the workspace at `options.root` (default `default_root`).
pub fn run(default_root: &Path, options: &Options) -> Result<()> {
    let options = options.checked()?;
    let root = options.root.as_deref().unwrap_or(default_root);
    let checked = check(root, options)?;
    let Checked {
        workspace,
        current,
        target,
        changelog_plan,
        order,
    } = checked;

    if target != current {
        println!("  (packaged at {current}; the release bumps to {target} before tagging)");
    }
    package::run(
        &workspace,
        &order,
        package::Packaging {
            allow_dirty: options.allow_dirty,
            no_verify: options.no_verify,
        },
    )?;

    if options.dry_run {
        println!("dry run: {target} is ready to release; nothing was changed");
    } else {
        apply(&workspace, &current, &target, &changelog_plan)?;
    }
    print_publish_steps(&order, &target, options.dry_run);
    Ok(())
}

/// The facts every later step needs, once every precondition holds.
struct Checked {
    workspace: Workspace,
    current: Version,
    target: Version,
    changelog_plan: Plan,
    order: Vec<String>,
}

/// Checks every precondition and reports all failures together.
fn check(root: &Path, options: &Options) -> Result<Checked> {
    let mut problems: Vec<String> = Vec::new();
    let mut ok: Vec<String> = Vec::new();

    match git::dirty_paths(root) {
        Ok(dirty) if dirty.is_empty() => ok.push("working tree clean".to_owned()),
        Ok(dirty) if options.allow_dirty => ok.push(format!(
            "working tree NOT checked (--allow-dirty; {} uncommitted change(s))",
            dirty.len()
        )),
        Ok(dirty) => problems.push(dirty_message(&dirty)),
        Err(error) => problems.push(format!("{error:#}")),
    }

    let workspace = Workspace::load(root)?;
    let (current, lock_step) = version::check(&workspace);
    let publishable = workspace.publishable_names();
    if lock_step.is_empty()
        && let Some(current) = &current
    {
        ok.push(format!(
            "{} crates at {current}, every internal requirement names {current}",
            publishable.len()
        ));
    }
    problems.extend(lock_step.iter().map(ToString::to_string));

    let target = options.version.clone().or_else(|| current.clone());
    if let (Some(current), Some(target)) = (&current, &target) {
        if target < current {
            problems.push(format!(
                "cannot release {target}: the workspace is already at {current}"
            ));
        }
        match git::tag_exists(root, &target.tag()) {
            Ok(true) => problems.push(format!(
                "tag {} exists: {target} is already released; pass --version with the next version",
                target.tag()
            )),
            Ok(false) => {}
            Err(error) => problems.push(format!("{error:#}")),
        }
    }

    let mut changelog_plan = None;
    if let Some(target) = &target {
        let path = root.join(changelog::FILE);
        match fs::read_to_string(&path) {
            Ok(text) => match changelog::plan(&text, target) {
                Ok(plan) => {
                    ok.push(match &plan {
                        Plan::RenameUnreleased { entries } => format!(
                            "{}: {entries} unreleased entries become `## [{target}] - {}`",
                            changelog::FILE,
                            date::today_utc()
                        ),
                        Plan::AlreadyPrepared => {
                            format!("{}: has its `## [{target}]` section", changelog::FILE)
                        }
                    });
                    changelog_plan = Some(plan);
                }
                Err(problem) => problems.push(problem.to_string()),
            },
            Err(_) => problems.push(format!(
                "no {} at {}: the release dates its `## [Unreleased]` section; create it",
                changelog::FILE,
                root.display()
            )),
        }
    }

    let before = problems.len();
    for package in workspace.packages.iter().filter(|p| p.publish) {
        problems.extend(metadata::problems(package).iter().map(ToString::to_string));
    }
    if problems.len() == before {
        ok.push(
            "metadata complete (description, license, repository, readme, keywords, categories)"
                .to_owned(),
        );
    }

    let before = problems.len();
    for (krate, allowed) in tidy::LAYERS {
        if let Some(package) = workspace.package(krate) {
            let text = fs::read_to_string(package.dir.join("Cargo.toml"))?;
            problems.extend(
                tidy::layer_problems(krate, allowed, &text)?
                    .iter()
                    .map(ToString::to_string),
            );
        }
    }
    let order = match order::publish_order(tidy::LAYERS, &publishable) {
        Ok(order) => Some(order),
        Err(error) => {
            problems.push(format!("{error:#}"));
            None
        }
    };
    if problems.len() == before {
        ok.push(
            "layer graph (docs/architecture.md#allowed-dependency-graph) gives the publish order"
                .to_owned(),
        );
    }

    let label = target
        .as_ref()
        .map_or_else(|| "?".to_owned(), |t| t.to_string());
    println!(
        "release {label}{} of {}",
        if options.dry_run { " (dry run)" } else { "" },
        root.display()
    );
    for line in &ok {
        println!("  ok  {line}");
    }
    if !problems.is_empty() {
        bail!(
            "release {label}: {} precondition(s) failed; nothing was changed{}",
            problems.len(),
            bullets(&problems)
        );
    }
    match (current, target, changelog_plan, order) {
        (Some(current), Some(target), Some(changelog_plan), Some(order)) => Ok(Checked {
            workspace,
            current,
            target,
            changelog_plan,
            order,
        }),
        _ => bail!("release: a precondition failed without a message (a bug in xtask)"),
    }
}

/// The problems as indented `✗` lines, one per problem, for an error message.
fn bullets<T: std::fmt::Display>(problems: &[T]) -> String {
    problems.iter().map(|p| format!("\n  ✗ {p}")).collect()
}

fn dirty_message(dirty: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut message = format!(
        "the working tree is not clean ({} uncommitted change(s)): commit or remove them, \
         since a release packages and tags what is committed",
        dirty.len()
    );
    for line in dirty.iter().take(SHOWN) {
        message.push_str("\n      ");
        message.push_str(line);
    }
    if dirty.len() > SHOWN {
        message.push_str(&format!("\n      ... and {} more", dirty.len() - SHOWN));
    }
    if dirty.iter().any(|line| line.get(3..) == Some("Cargo.lock")) {
        message.push_str(
            "\n    (a Cargo.lock that changes on its own is out of date with the manifests: \
             commit the updated one)",
        );
    }
    message
}

/// The release itself: bump, changelog, commit, tag. Runs only after every check
/// and the packaging passed.
fn apply(workspace: &Workspace, current: &Version, target: &Version, plan: &Plan) -> Result<()> {
    let root = &workspace.root;
    let mut changed: Vec<&str> = Vec::new();
    let undo_hint = "nothing is committed yet: `git checkout -- Cargo.toml Cargo.lock CHANGELOG.md` undoes the edits";

    if target != current {
        let path = root.join("Cargo.toml");
        let text = fs::read_to_string(&path).context("reading Cargo.toml")?;
        let bumped = bump::bump_root_manifest(&text, &workspace.publishable_names(), target)?;
        fs::write(&path, bumped).context("writing Cargo.toml")?;
        changed.push("Cargo.toml");
        println!("  bumped Cargo.toml: {current} -> {target}");

        update_lockfile(root).with_context(|| undo_hint.to_owned())?;
        if git::is_tracked(root, "Cargo.lock")? {
            changed.push("Cargo.lock");
        }
        let bumped = Workspace::load(root).with_context(|| undo_hint.to_owned())?;
        let (version, problems) = version::check(&bumped);
        if version.as_ref() != Some(target) || !problems.is_empty() {
            bail!(
                "after the bump the workspace is not in lock-step at {target}; {undo_hint}{}",
                bullets(&problems)
            );
        }
    }

    if let Plan::RenameUnreleased { .. } = plan {
        let path = root.join(changelog::FILE);
        let text = fs::read_to_string(&path)?;
        let today = date::today_utc();
        let released =
            changelog::release(&text, target, &today).map_err(|p| anyhow::anyhow!("{p}"))?;
        fs::write(&path, released)?;
        changed.push(changelog::FILE);
        println!("  dated {}: ## [{target}] - {today}", changelog::FILE);
    }

    if !changed.is_empty() {
        git::commit(root, &format!("Release {target}"), &changed)
            .with_context(|| undo_hint.to_owned())?;
        println!("  committed \"Release {target}\" ({})", changed.join(", "));
    }
    git::tag(root, &target.tag(), &format!("overspill {target}"))?;
    println!("  tagged {}", target.tag());
    Ok(())
}

/// Refreshes the workspace members' versions in Cargo.lock, leaving every other
/// locked version as it is.
fn update_lockfile(root: &Path) -> Result<()> {
    let status = crate::cargo::command(root)
        .args(["update", "--workspace", "--quiet"])
        .status()
        .context("could not start `cargo update --workspace`")?;
    if !status.success() {
        bail!("`cargo update --workspace` failed ({status})");
    }
    Ok(())
}

fn print_publish_steps(order: &[String], target: &Version, dry_run: bool) {
    println!("publish order:");
    for (i, name) in order.iter().enumerate() {
        println!("  {}. {name}", i + 1);
    }
    if dry_run {
        println!("to release: cargo xtask release --version {target}");
    } else {
        println!("to publish (this task never does), in this order:");
        println!("  git push origin HEAD {}", target.tag());
        for name in order {
            println!("  cargo publish -p {name}");
        }
    }
}

#[cfg(test)]
mod tests;
