"""Compiles an OCI/Docker-format seccomp profile (the containers project's default: /usr/share/containers/seccomp.json)
into the classic BPF program bubblewrap loads with `--seccomp FD`, with libseccomp (Debian: python3-seccomp).

    python3 seccomp-compile.py PROFILE OUTPUT

Run once at worker start (apps/worker/src/sandbox/seccomp.ts), never per launch. The profile is read the way runc
reads it for a container with no capabilities (a bubblewrap sandbox keeps none): rules that need a capability are
left out, rules that apply without one are kept; `arches`, `minKernel` and argument conditions as runc applies them.
Prints one JSON line: {"ok": true, "rules": N, "skipped": [names unknown to this libseccomp]} or {"ok": false, ...}.
"""

import json
import os
import platform
import sys

import seccomp

# Go's architecture names (the profile's `arches`) for this machine, as runc names them.
GO_ARCH = {
    "x86_64": "amd64",
    "aarch64": "arm64",
    "i686": "386",
    "armv7l": "arm",
    "ppc64le": "ppc64le",
    "s390x": "s390x",
    "riscv64": "riscv64",
}
# The profile's SCMP_ARCH_* names that libseccomp's Python binding knows.
ARCHES = {
    "SCMP_ARCH_X86": seccomp.Arch.X86,
    "SCMP_ARCH_X86_64": seccomp.Arch.X86_64,
    "SCMP_ARCH_X32": seccomp.Arch.X32,
    "SCMP_ARCH_ARM": seccomp.Arch.ARM,
    "SCMP_ARCH_AARCH64": seccomp.Arch.AARCH64,
    "SCMP_ARCH_PPC64LE": seccomp.Arch.PPC64LE,
    "SCMP_ARCH_S390": seccomp.Arch.S390,
    "SCMP_ARCH_S390X": seccomp.Arch.S390X,
}
OPS = {
    "SCMP_CMP_NE": seccomp.NE,
    "SCMP_CMP_LT": seccomp.LT,
    "SCMP_CMP_LE": seccomp.LE,
    "SCMP_CMP_EQ": seccomp.EQ,
    "SCMP_CMP_GE": seccomp.GE,
    "SCMP_CMP_GT": seccomp.GT,
    "SCMP_CMP_MASKED_EQ": seccomp.MASKED_EQ,
}
EPERM = 1


def kernel_at_least(version):
    want = [int(p) for p in version.split(".")[:2]]
    have = [int("".join(c for c in p if c.isdigit()) or 0) for p in platform.release().split(".")[:2]]
    return have >= want


def action(name, errno_ret, default_errno):
    if name == "SCMP_ACT_ALLOW":
        return seccomp.ALLOW
    if name == "SCMP_ACT_ERRNO":
        return seccomp.ERRNO(errno_ret if errno_ret is not None else default_errno)
    if name == "SCMP_ACT_KILL" or name == "SCMP_ACT_KILL_THREAD":
        return seccomp.KILL
    if name == "SCMP_ACT_KILL_PROCESS":
        return seccomp.KILL_PROCESS
    if name == "SCMP_ACT_TRAP":
        return seccomp.TRAP
    if name == "SCMP_ACT_LOG":
        return seccomp.LOG
    raise ValueError(f"unsupported action {name}")


def applies(rule, go_arch):
    includes, excludes = rule.get("includes") or {}, rule.get("excludes") or {}
    # The sandbox holds no capability: a rule that needs one is not for it, one that is for "without" is.
    if includes.get("caps"):
        return False
    if includes.get("arches") and go_arch not in includes["arches"]:
        return False
    if excludes.get("arches") and go_arch in excludes["arches"]:
        return False
    if includes.get("minKernel") and not kernel_at_least(includes["minKernel"]):
        return False
    if excludes.get("minKernel") and kernel_at_least(excludes["minKernel"]):
        return False
    return True


def main(profile_path, output_path):
    with open(profile_path, encoding="utf-8") as f:
        profile = json.load(f)
    go_arch = GO_ARCH.get(platform.machine(), platform.machine())
    default_errno = profile.get("defaultErrnoRet", EPERM)
    filt = seccomp.SyscallFilter(action(profile["defaultAction"], default_errno, default_errno))
    native = seccomp.Arch()
    for entry in profile.get("archMap") or []:
        if ARCHES.get(entry["architecture"]) == native:
            for sub in entry.get("subArchitectures") or []:
                if sub in ARCHES:
                    try:
                        filt.add_arch(ARCHES[sub])
                    except Exception:  # already there
                        pass
    rules, skipped = 0, []
    for rule in profile.get("syscalls") or []:
        if not applies(rule, go_arch):
            continue
        act = action(rule["action"], rule.get("errnoRet"), EPERM)
        # For SCMP_CMP_MASKED_EQ `value` is the mask and `valueTwo` the value, as libseccomp takes them.
        args = [seccomp.Arg(a["index"], OPS[a["op"]], a["value"], a.get("valueTwo", 0)) for a in rule.get("args") or []]
        # runc: conditions on one argument index are alternatives (one rule each); on distinct indexes, all must hold.
        indexes = [a["index"] for a in rule.get("args") or []]
        groups = [[arg] for arg in args] if len(set(indexes)) < len(indexes) else [args]
        for name in rule["names"]:
            for conditions in groups:
                try:
                    filt.add_rule(act, name, *conditions)
                    rules += 1
                except Exception:
                    # A name this libseccomp does not know on this architecture, or the default action again.
                    skipped.append(name)
    tmp = f"{output_path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as out:
        filt.export_bpf(out)
    os.chmod(tmp, 0o644)
    os.replace(tmp, output_path)
    print(json.dumps({"ok": True, "rules": rules, "skipped": sorted(set(skipped))}))


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as error:  # one readable line for the worker's log
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"}))
        sys.exit(1)
