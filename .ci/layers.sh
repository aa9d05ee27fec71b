#!/usr/bin/env bash
# Checks that CRUDKit's layers cannot regress where the compiler alone does not catch it (README, "Architecture").
#
#   .ci/layers.sh
#
# 1. The module graph in Package.swift (read with `swift package describe --type json`) is exactly the documented
#    one: CRUDKitCore and CRUDKitJSON at the bottom, CRUDKitFuture and CRUDKitHTTP on CRUDKitCore, CRUDKit on all
#    four; CRUDKitTesting and the demo only on CRUDKit (and each other); no other library target.
# 2. Each module's files import only what its layer may use: CRUDKitFuture no Foundation (so no URLError, no
#    FoundationNetworking), CRUDKitCore and CRUDKitJSON no FoundationNetworking, no lower module a higher one.
#    (SwiftPM can let a target import a module it does not declare when that module happens to be built first.)
# 3. `CRUDKit` re-exports the four lower modules with `@_exported import`, so a user writes only `import CRUDKit`.
# 4. A `///` comment in a lower module links (``Name`` or ``Name/member``) only to types of its own module or of
#    a module below it; a higher type may be named as a plain code span (`API`), never as a symbol link, because
#    the link would not resolve in that module's own documentation and would make the lower layer know the upper.
# Prints one line per check and every violation with file:line; exits 1 on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."

swift package describe --type json > "${TMPDIR:-/tmp}/crudkit-layers-describe.json"
python3 - "${TMPDIR:-/tmp}/crudkit-layers-describe.json" << 'PY'
import json, os, re, sys

# module -> the modules it may depend on (directly), and the imports its files may write.
GRAPH = {
    "CRUDKitCore": [],
    "CRUDKitJSON": [],
    "CRUDKitFuture": ["CRUDKitCore"],
    "CRUDKitHTTP": ["CRUDKitCore"],
    "CRUDKit": ["CRUDKitCore", "CRUDKitFuture", "CRUDKitJSON", "CRUDKitHTTP"],
}
PLATFORM = {"Darwin", "Glibc", "Musl"}
IMPORTS = {
    "CRUDKitCore": {"Foundation"} | PLATFORM,
    "CRUDKitJSON": {"Foundation"} | PLATFORM,
    "CRUDKitFuture": {"CRUDKitCore", "Dispatch", "Synchronization"} | PLATFORM,
    "CRUDKitHTTP": {"CRUDKitCore", "Foundation", "FoundationNetworking", "Dispatch", "Synchronization"} | PLATFORM,
    "CRUDKit": set(GRAPH) | {"Foundation", "FoundationNetworking", "Dispatch", "Synchronization"} | PLATFORM,
}
ON_TOP = {"CRUDKitTesting": ["CRUDKit"], "crudkit-demo": ["CRUDKit", "CRUDKitTesting"]}

failures = []
describe = json.load(open(sys.argv[1]))
targets = {t["name"]: t for t in describe["targets"]}

# 1. The graph.
libraries = {n for n, t in targets.items() if t.get("type") == "library"}
for name, deps in list(GRAPH.items()) + list(ON_TOP.items()):
    if name not in targets:
        failures.append(f"Package.swift: target {name} is missing")
        continue
    declared = sorted(targets[name].get("target_dependencies") or [])
    if declared != sorted(deps):
        failures.append(f"Package.swift: {name} depends on {declared}; the layers allow exactly {sorted(deps)}")
    if targets[name].get("product_dependencies"):
        failures.append(f"Package.swift: {name} depends on a package product; the root package stays dependency-free")
for name in sorted(libraries - set(GRAPH) - set(ON_TOP)):
    failures.append(f"Package.swift: library target {name} is not in the documented layers (.ci/layers.sh GRAPH)")
print(f"LAYERS graph: {', '.join(f'{n} -> {GRAPH[n] or []}' for n in GRAPH)}")

# 2. Imports, and 4. doc links; first, which module declares each type.
def swift_files(module):
    root = targets[module]["path"]
    for folder, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(".swift"):
                yield os.path.join(folder, f)

declaring = {}
decl = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|"
                  r"nonisolated)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)")
for module in GRAPH:
    for path in swift_files(module):
        for line in open(path, encoding="utf-8"):
            m = decl.match(line)
            if m and not line.lstrip().startswith("//") and m.group(1) not in declaring:
                declaring[m.group(1)] = module

def below(module):
    seen, todo = set(), list(GRAPH[module])
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(GRAPH[m])
    return seen

importline = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal)\s+)?import\s+(?:\w+\s+)?(\w+)")
link = re.compile(r"``([A-Za-z_]\w*)")
imports_checked = links_checked = 0
for module in GRAPH:
    visible = {module} | below(module)
    for path in swift_files(module):
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            m = importline.match(line)
            if m:
                imports_checked += 1
                if m.group(1) not in IMPORTS[module]:
                    failures.append(f"{path}:{number}: {module} may not import {m.group(1)} "
                                    f"(allowed: {', '.join(sorted(IMPORTS[module]))})")
            if module != "CRUDKit" and line.lstrip().startswith("///"):
                for name in link.findall(line):
                    owner = declaring.get(name)
                    links_checked += 1
                    if owner and owner not in visible:
                        failures.append(f"{path}:{number}: the doc link ``{name}…`` names a type of {owner}, above "
                                        f"{module}; write it as a code span (`{name}`)")
print(f"LAYERS imports: {imports_checked} import lines checked against each module's allowed list")
print(f"LAYERS doc links: {links_checked} links in the lower modules checked against the layers")

# 3. Re-exports.
exported = set()
for path in swift_files("CRUDKit"):
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^@_exported import (\w+)", line)
        if m:
            exported.add(m.group(1))
missing = set(GRAPH["CRUDKit"]) - exported
if missing:
    failures.append(f"Sources/CRUDKit: no `@_exported import` of {', '.join(sorted(missing))}")
print(f"LAYERS re-exports: CRUDKit re-exports {', '.join(sorted(exported & set(GRAPH)))}")

for failure in failures:
    print("LAYERS violation: " + failure, file=sys.stderr)
print(f"LAYERS: {'FAILED, ' + str(len(failures)) + ' violation(s)' if failures else 'ok'}")
sys.exit(1 if failures else 0)
PY
