"""Fails when an ELF file under the given directories has a RUNPATH or
RPATH entry that is empty or relative (not absolute, not $ORIGIN-based):
the dynamic loader resolves those against the current directory."""

import os
import re
import subprocess
import sys

checked, bad = 0, []
for root in sys.argv[1:]:
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            if f.read(4) != b"\x7fELF":
                continue
        dynamic = subprocess.run(["readelf", "-d", path], capture_output=True,
                                 text=True, check=True).stdout
        checked += 1
        for kind, value in re.findall(r"\((RUNPATH|RPATH)\).*\[(.*)\]",
                                      dynamic):
            for entry in value.split(":"):
                if not entry.startswith(("/", "$ORIGIN")):
                    bad.append(f"{path}: {kind} entry '{entry}' in '{value}'")
for line in bad:
    print(line)
if bad or not checked:
    sys.exit(1)
print(f"run paths: {checked} binaries checked, none searches the current "
      "directory")
