#!/usr/bin/env python3
"""Summarises the public surface from symbol graphs (used by .ci/surface.sh).

    Scripts/surface.py DIR [NAME ...]

DIR holds `<Module>.symbols.json` (and `<Module>@<Other>.symbols.json` for extensions of other modules' types), as
written by `swift-symbolgraph-extract -minimum-access-level public`. Prints, per module, the public symbol count and
public types; the members a `CRUDModel` conformer picks up (members of the model protocols and their extensions);
and the overloads per name for the busiest names (and for each NAME given).
"""

import collections
import glob
import json
import os
import sys

TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias", "swift.actor"}
CALLABLE_KINDS = {"swift.method", "swift.type.method", "swift.func", "swift.init", "swift.subscript",
                  "swift.type.subscript"}
MODEL_PROTOCOLS = {"CRUDModel", "Creatable", "Readable", "Updatable", "Deletable", "Enumeratable"}
WATCHED = ["delete", "update", "send", "read", "get", "post", "put", "patch", "create", "list", "page", "action",
           "readTagged", "download", "updateChanges"]


def load(directory):
    modules = collections.defaultdict(lambda: {"symbols": {}, "relationships": []})
    for path in sorted(glob.glob(os.path.join(directory, "*.symbols.json"))):
        name = os.path.basename(path)[: -len(".symbols.json")]
        module = name.split("@")[0]
        with open(path) as handle:
            graph = json.load(handle)
        for symbol in graph.get("symbols", []):
            modules[module]["symbols"][symbol["identifier"]["precise"]] = symbol
        modules[module]["relationships"] += graph.get("relationships", [])
    return modules


def base_name(symbol):
    title = symbol["names"]["title"]
    return title.split("(")[0]


def main():
    directory = sys.argv[1]
    extra = sys.argv[2:]
    modules = load(directory)
    everything = {}
    relationships = []
    for module, graph in sorted(modules.items()):
        everything.update(graph["symbols"])
        relationships += graph["relationships"]

    print("== Public symbols per module")
    total = 0
    for module, graph in sorted(modules.items()):
        count = len(graph["symbols"])
        total += count
        print(f"  {module:<24} {count}")
    print(f"  {'total':<24} {total}")

    print("\n== Public types")
    for module, graph in sorted(modules.items()):
        types = sorted(
            ".".join(symbol["pathComponents"])
            for symbol in graph["symbols"].values()
            if symbol["kind"]["identifier"] in TYPE_KINDS
        )
        print(f"  {module} ({len(types)}): {', '.join(types)}")

    # The model protocols, and every protocol they refine (a conformer picks up those extensions too).
    protocols = {
        precise for precise, symbol in everything.items()
        if symbol["kind"]["identifier"] == "swift.protocol" and symbol["names"]["title"] in MODEL_PROTOCOLS
    }
    refines = collections.defaultdict(set)
    for relation in relationships:
        if relation["kind"] == "conformsTo" and everything.get(relation["source"], {}).get("kind", {}).get(
                "identifier") == "swift.protocol":
            refines[relation["source"]].add(relation["target"])
    pending = list(protocols)
    while pending:
        for parent in refines[pending.pop()]:
            if parent in everything and parent not in protocols:
                protocols.add(parent)
                pending.append(parent)
    members = collections.Counter()
    seen = set()
    for relation in relationships:
        if relation["kind"] in ("memberOf", "requirementOf", "optionalRequirementOf") and \
                relation["target"] in protocols and relation["source"] in everything and relation["source"] not in seen:
            seen.add(relation["source"])
            members[base_name(everything[relation["source"]])] += 1
    names = sorted(everything[p]["names"]["title"] for p in protocols)
    print(f"\n== Members a CRUDModel conformer picks up: {sum(members.values())} "
          f"({len(members)} names; from {', '.join(names)})")
    print("  " + ", ".join(f"{name} {count}" for name, count in sorted(members.items())))

    overloads = collections.Counter(
        base_name(symbol) for symbol in everything.values() if symbol["kind"]["identifier"] in CALLABLE_KINDS
    )
    print("\n== Overloads per name (all modules; the busiest, then the verbs)")
    print("  " + ", ".join(f"{name} {count}" for name, count in overloads.most_common(15)))
    print("  " + ", ".join(f"{name} {overloads[name]}" for name in WATCHED + extra))


if __name__ == "__main__":
    main()
