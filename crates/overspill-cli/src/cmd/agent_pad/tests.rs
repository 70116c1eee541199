use clap::Args;

use super::*;

/// Every long flag of [`PadFlags`], as clap knows them.
fn every_flag() -> Vec<String> {
    PadFlags::augment_args(clap::Command::new("overspill"))
        .get_arguments()
        .filter_map(clap::Arg::get_long)
        .map(|long| format!("--{long}"))
        .collect()
}

#[test]
fn the_flags_of_an_installed_gateway_entry_are_those_its_hook_is_given() {
    let entry = [
        "mcp",
        "--servers",
        "/home/me/.config/overspill/clients/claude-code-1a2b3c4d.json",
        "--answer-within",
        "25",
        "--provider",
        "anthropic",
        "--context-window",
        "200000",
        "--tool-prefix=pad_",
    ];
    let flags = PadFlags::of_gateway(entry);
    assert_eq!(
        flags.to_args(),
        [
            "--servers",
            "/home/me/.config/overspill/clients/claude-code-1a2b3c4d.json",
            "--provider",
            "anthropic",
            "--tool-prefix",
            "pad_",
        ]
    );
}

#[test]
fn every_flag_of_pad_flags_is_read_from_a_gateway_and_written_back() {
    let mut args = Vec::new();
    for (at, flag) in every_flag().iter().enumerate() {
        args.push(flag.clone());
        args.push(format!("-value-{at}"));
    }
    let flags = PadFlags::of_gateway(args.iter().map(String::as_str));
    let written = flags.to_args();
    for flag in every_flag() {
        assert!(
            written.contains(&flag),
            "{flag} is not written: {written:?}"
        );
    }
    // Values that start with `-` stay values, and the round trip changes nothing.
    assert_eq!(
        PadFlags::of_gateway(written.iter().map(String::as_str)),
        flags
    );
}

#[test]
fn a_gateways_server_command_and_other_flags_are_not_read() {
    let flags = PadFlags::of_gateway([
        "mcp",
        "--name",
        "github",
        "--init-timeout",
        "30",
        "--",
        "npx",
        "server",
        "--dir",
        "/elsewhere",
    ]);
    assert_eq!(flags, PadFlags::default());
    assert!(flags.to_args().is_empty());
}
