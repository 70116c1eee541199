#!/usr/bin/env node
// The `overspill` command of the npm package. npm installs, beside this launcher, the one
// platform package of its optionalDependencies whose os, cpu and libc match the machine; this
// runs that package's native binary with the same arguments, standard streams and exit status
// (docs/releasing.md#the-npm-packages). No install script downloads anything.
"use strict";

const { spawn } = require("node:child_process");
const os = require("node:os");

/** The platform packages that can run here, best first. */
function candidates() {
  const { platform, arch } = process;
  if (platform === "linux") {
    // A static musl binary runs on any Linux; the glibc one only where glibc is.
    if (process.report) {
      process.report.excludeNetwork = true;
    }
    const report = process.report && process.report.getReport();
    const glibc = Boolean(report && report.header && report.header.glibcVersionRuntime);
    return glibc ? [`linux-${arch}-gnu`, `linux-${arch}-musl`] : [`linux-${arch}-musl`];
  }
  return [`${platform}-${arch}`];
}

function binary() {
  const executable = process.platform === "win32" ? "overspill.exe" : "overspill";
  for (const name of candidates()) {
    try {
      return require.resolve(`@overspill/${name}/bin/${executable}`);
    } catch {
      // Not installed: npm skipped it for another os, cpu or libc.
    }
  }
  return null;
}

const found = binary();
if (found === null) {
  console.error(
    `overspill: none of the packages ${candidates().map((name) => `@overspill/${name}`).join(", ")} ` +
      `is installed, so there is no overspill binary for ${process.platform}-${process.arch}. ` +
      "Reinstall without --omit=optional (and with optional dependencies enabled), or install " +
      "the binary another way: https://github.com/overspill-rs/overspill/blob/main/docs/install.md"
  );
  process.exit(1);
}

const child = spawn(found, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
// A client that stops the server signals this process; the binary must hear it too (SIGHUP
// reloads a gateway's servers file).
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of forwarded) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => {
  console.error(`overspill: cannot run ${found}: ${error.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal !== null) {
    // End as the binary ended: by the same signal, with the default action restored.
    for (const name of forwarded) {
      process.removeAllListeners(name);
    }
    process.kill(process.pid, signal);
    // A signal Node ignores or handles itself (SIGPIPE, SIGUSR1) does not end it: exit as a
    // shell reports a death by signal.
    setImmediate(() => process.exit(128 + (os.constants.signals[signal] || 0)));
    return;
  }
  process.exit(code === null ? 1 : code);
});
