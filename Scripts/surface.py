#!/usr/bin/env python3
"""Summarises the public surface from symbol graphs (used by .ci/surface.sh).

    Scripts/surface.py DIR [--budget FILE] [NAME ...]

DIR holds `<Module>.symbols.json` (and `<Module>@<Other>.symbols.json` for extensions of other modules' types), as
written by `swift-symbolgraph-extract -minimum-access-level public`. Prints, per module, the public symbol count and
public types; the members a `CRUDModel` conformer picks up (members of the model protocols and their extensions);
and the overloads per name for the busiest names (and for each NAME given).

With --budget FILE (a JSON object, `.ci/surface-budget.json`), it then compares the figures with the committed budget
and exits 1 when any differs: a change that grows (or shrinks) the public surface updates the budget in the same
commit, so the diff of that file is where the growth is reviewed. The budget's keys:
    library_symbols     public non-synthesized symbols of the library modules (every module but CRUDKitTesting)
    testing_symbols     the same for CRUDKitTesting
    model_members       members a CRUDModel conformer picks up
    overloads           {name: declarations} for watched names (e.g. "delete")
    forbidden_types     public type names that must not exist (e.g. "Interceptor")
    transport_kit_symbols  public symbols behind `@_spi(TransportKit)` (the transport-author toolkit), counted
                        apart from library_symbols (needs --spi DIR: the same graphs extracted with SPI symbols)
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
    budget_path = None
    spi_directory = None
    if "--spi" in extra:
        index = extra.index("--spi")
        spi_directory = extra[index + 1]
        del extra[index:index + 2]
    if "--budget" in extra:
        index = extra.index("--budget")
        budget_path = extra[index + 1]
        del extra[index:index + 2]
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
    transport_kit = None
    if spi_directory is not None:
        with_spi = load(spi_directory)
        transport_kit = sum(
            len(set(graph["symbols"]) - set(modules.get(module, {"symbols": {}})["symbols"]))
            for module, graph in with_spi.items() if module != "CRUDKitTesting"
        )
        print(f"  behind @_spi(TransportKit), for transport authors (not in the counts above): {transport_kit}")

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

    if budget_path is None:
        return 0
    with open(budget_path) as handle:
        budget = json.load(handle)
    type_names = {
        symbol["names"]["title"] for symbol in everything.values() if symbol["kind"]["identifier"] in TYPE_KINDS
    }
    testing = len(modules.get("CRUDKitTesting", {"symbols": {}})["symbols"])
    measured = {
        "library_symbols": total - testing,
        "testing_symbols": testing,
        "model_members": sum(members.values()),
        "overloads": {name: overloads[name] for name in budget.get("overloads", {})},
        "forbidden_types": sorted(name for name in budget.get("forbidden_types", []) if name in type_names),
        "transport_kit_symbols": transport_kit,
    }
    print(f"\n== Budget ({budget_path})")
    failed = False
    keys = ["library_symbols", "testing_symbols", "model_members", "overloads"]
    if transport_kit is not None:
        keys.append("transport_kit_symbols")
    for key in keys:
        expected, actual = budget.get(key), measured[key]
        mark = "ok" if expected == actual else "DIFFERS"
        failed |= expected != actual
        print(f"  {key:<18} budget {expected}  measured {actual}  {mark}")
    if measured["forbidden_types"]:
        failed = True
        print(f"  forbidden public types present: {', '.join(measured['forbidden_types'])}")
    if failed:
        print("  The public surface differs from the committed budget: review the change, then write the measured "
              f"figures into {budget_path} in the same commit.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
