#!/usr/bin/env python3
"""Generates the `Future` twins of CRUDKit's `async` operations.

    Scripts/generate-future-twins.py [--output DIR] [--root PACKAGE]

Every operation is written once, as `async`. A marker line just above its doc comment asks for its `Future` twin:

    // twin: future
    /// Reads the value with `id`: `GET /people/{id}`.
    /// - Parameter id: The id.
    /// - Returns: The server's value.
    /// - Throws: ``CRUDError``.
    public static func read(id: ID) async throws -> Self { … }

    // twin: future, noasync: the delete; write let _: Okay =
    // twin: future, via: scope
    // twin: none (why there is no twin)

- `noasync: WHAT; FIX` marks the twin `@available(*, noasync, message: "Future overload: only starts WHAT. In async
  code (main.swift too) use @main, or FIX")`: a write whose `Future` form, called by mistake in async code, would
  only start the request (issue 15 item 19).
- `via: EXPR` names what the twin's `future { … }` helper is called on; by default `self` in a type's extension
  (`API`, `ResourceScope`), and `Self` in a protocol's (`CRUDResource.future` pins the API at call time).
- `none (reason)` opts out, with the reason.

The async operation is marked `@_disfavoredOverload` (the script fails without it): in synchronous code the type
checker then leaves the async forms aside instead of trying each with every other call's overloads, so a mistake in a
chain of `Future` calls is a quick type error (issue 15 item 17); in async code the async form still wins.

The twin has the same name, parameters and other attributes, answers `Future<Value>` instead of `async throws -> Value`,
and is `helper.future { try await self.operation(arguments) }`: the `async` operation run in a task, callbacks on the
API's `callbackQueue`, cancelling the future cancels the task. Its doc says it is the `Future` form of the operation,
with the operation's summary and parameters.

The twins of `Sources/CRUDKit/<Area>/<File>.swift` go to `Sources/CRUDKit/Generated/FutureTwins+<File>.swift`
(`+` dropped from <File>). The script fails (exit 1) when a public `async` operation in `Client/` or `CRUD/`, in an
extension of one of OPERATION_TYPES, has no marker, or when a marker cannot be read.
"""

import argparse
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SOURCES = os.path.join(ROOT, "Sources", "CRUDKit")
SCANNED = ["Client", "CRUD"]
GENERATED = os.path.join(SOURCES, "Generated")
# The types (and protocols) whose public async functions are operations a user calls, so need a twin or an opt-out.
# Protocol requirements and conformances (`Interceptor.adapt`, `APIClock.sleep`, `AsyncIterator.next`) are not.
OPERATION_TYPES = {"API", "ResourceScope", "CRUDResource", "Creatable", "Readable", "Updatable", "Deletable",
                   "Enumeratable", "Versioned", "Page", "PageSequence"}
PROTOCOLS = {"CRUDResource", "Creatable", "Readable", "Updatable", "Deletable", "Enumeratable", "CRUDModel",
             "WritableResource"}
LINE_LIMIT = 120
# Every async operation that has a twin carries this attribute (the twin does not). In synchronous code only the
# Future form fits, and the type checker then skips the async overloads instead of pairing each with every other
# call's overloads; in async code the async form still wins, since Swift ranks "a synchronous call in async code"
# above "a disfavoured overload".
DISFAVORED = "@_disfavoredOverload"


class Failure(Exception):
    pass


def split_top_level(text, separator=","):
    """Splits at `separator` outside (), [], <> (an arrow's `>` is not a bracket)."""
    parts, depth, current, previous = [], 0, "", ""
    for char in text:
        if char in "([<":
            depth += 1
        elif char in ")]" or (char == ">" and previous != "-"):
            depth -= 1
        if char == separator and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
        previous = char
    if current.strip():
        parts.append(current.strip())
    return parts


def container_of(line):
    """`extension API {` → ("extension API", "API"); `public struct Page<…>: Sendable {` → ("extension Page", "Page")."""
    stripped = line.strip()
    match = re.match(r"extension (\w+)\b(.*)\{$", stripped)
    if match:
        where = re.search(r"\bwhere .*", match.group(2))
        header = f"extension {match.group(1)}" + (f" {where.group(0).strip()}" if where else "")
        return header, match.group(1)
    match = re.match(r"(?:@\w+\s+)*(?:public |package |internal )?(?:final )?(?:struct|class|enum|actor) (\w+)", stripped)
    if match and stripped.endswith("{"):
        return f"extension {match.group(1)}", match.group(1)
    return None


def parse_marker(text, where):
    """`future, noasync: the delete; write let _: Okay =, via: scope` → dict; `none (…)` → None."""
    if re.match(r"none\b", text):
        if not re.match(r"none\s*\(.+\)", text):
            raise Failure(f"{where}: an opt-out says why: // twin: none (reason)")
        return None
    if not text.startswith("future"):
        raise Failure(f"{where}: unknown marker '// twin: {text}'")
    options = {}
    for part in re.split(r",\s*(?=(?:noasync|via):)", text[len("future"):].lstrip(", ")):
        if not part:
            continue
        key, _, value = part.partition(":")
        if key.strip() not in ("noasync", "via") or not value.strip():
            raise Failure(f"{where}: cannot read '{part}' in '// twin: {text}'")
        options[key.strip()] = value.strip()
    if "noasync" in options and ";" not in options["noasync"]:
        raise Failure(f"{where}: noasync: WHAT; FIX (e.g. 'the delete; write let _: Okay =')")
    return options


def parse_doc(lines):
    """The summary paragraph, the parameter lines and the Returns text of a doc comment (without `/// `)."""
    body = [line[4:] if line.startswith("/// ") else line[3:] for line in lines]
    summary, parameters, returns = [], [], []
    index = 0
    while index < len(body) and body[index].strip() and not body[index].startswith("- ") \
            and not body[index].startswith("```"):
        summary.append(body[index])
        index += 1
    section = None
    for line in body[index:]:
        if line.startswith("- Parameter"):
            section = "parameters"
            parameters.append(line)
        elif line.startswith("- Returns:"):
            section = "returns"
            returns.append(line[len("- Returns:"):].strip())
        elif line.startswith("- "):
            section = None
        elif line.startswith("  ") and section == "parameters":
            parameters.append(line)
        elif line.startswith("  ") and section == "returns":
            returns.append(line.strip())
        else:
            section = None
    return summary, parameters, " ".join(returns)


def selector(name, parameters):
    labels = []
    for parameter in parameters:
        names = parameter.split(":")[0].split()
        labels.append(f"{names[0]}:")
    return f"{name}({''.join(labels)})"


def argument(parameter):
    names = parameter.split(":")[0].split()
    label, local = (names[0], names[-1])
    return local if label == "_" else f"{label}: {local}"


def future_returns(text):
    if not text:
        return "A future of the answer; cancel it to cancel the work."
    first, _, rest = text.partition(" ")
    if first in ("The", "A", "An", "Every", "Each"):
        text = first.lower() + " " + rest
    return f"A future of {text}"


def wrap_doc(text, indent, prefix="/// "):
    """Wraps `text` into `///` lines of at most LINE_LIMIT columns."""
    lines, current = [], ""
    words = []
    for word in text.split():  # a code span stays on one line
        if words and words[-1].count("`") % 2 == 1:
            words[-1] += " " + word
        else:
            words.append(word)
    for word in words:
        candidate = f"{current} {word}" if current else word
        if len(indent) + len(prefix) + len(candidate) > LINE_LIMIT and current:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return [f"{indent}{prefix}{line}".rstrip() for line in lines]


def parse_file(path):
    """The marked operations of one file: [(container header, container type, marker options, doc, declaration)]."""
    relative = os.path.relpath(path, ROOT)
    with open(path) as handle:
        lines = handle.read().split("\n")
    found, stack, depth = [], [], 0
    index = 0
    while index < len(lines):
        line = lines[index]
        container = container_of(line)
        if container:
            stack.append((depth, container))
        match = re.match(r"\s*(public|package) (static )?func (\w+)", line)
        if match and stack and stack[-1][0] + 1 == depth and match.group(1) == "public":
            # The whole declaration, up to the body's opening brace.
            end = index
            while "{" not in lines[end]:
                end += 1
            declaration = " ".join(part.strip() for part in lines[index:end + 1])
            declaration = declaration[: declaration.index("{") + 1]
            if re.search(r"\)\s*async\b", declaration):
                header, typename = stack[-1][1]
                # The attributes above, then the doc comment, then the marker.
                above = index - 1
                marker, attributes = None, []
                while above >= 0 and lines[above].strip() and not lines[above].strip().startswith("///"):
                    attributes.insert(0, lines[above].strip())
                    above -= 1
                doc_end = above
                while above >= 0 and lines[above].strip().startswith("///"):
                    above -= 1
                doc = [line.strip() for line in lines[above + 1:doc_end + 1]]
                if above >= 0 and lines[above].strip().startswith("// twin:"):
                    marker = lines[above].strip()[len("// twin:"):].strip()
                where = f"{relative}:{index + 1} {match.group(3)}"
                if marker is None:
                    if typename in OPERATION_TYPES:
                        raise Failure(f"{where}: a public async operation with neither a twin nor an opt-out; add "
                                      "'// twin: future' (or '// twin: none (reason)') above it")
                else:
                    options = parse_marker(marker, where)
                    if options is not None:
                        found.append((header, typename, options, doc, attributes, declaration, where))
            index = end
            depth += lines[index].count("{") - lines[index].count("}")
            index += 1
            continue
        depth += line.count("{") - line.count("}")
        while stack and depth <= stack[-1][0]:
            stack.pop()
        index += 1
    return found


def twin(typename, options, doc, attributes, declaration, where):
    match = re.match(
        r"public (static )?func (\w+)(<.*?>)?\((.*)\)\s*async throws -> (.+?)(\s+where .+?)?\s*\{$", declaration)
    if not match:
        raise Failure(f"{where}: cannot read the declaration '{declaration}' (expected 'public func f(…) async "
                      "throws -> Value {')")
    static, name, generics, parameter_text, result, where_clause = match.groups()
    parameters = split_top_level(parameter_text)
    indent = "    "
    out = []
    summary, parameter_docs, returns = parse_doc(doc)
    of = selector(name, parameters)
    out += wrap_doc(f"The `Future` form of `{of}`. " + " ".join(summary), indent)
    out.append(f"{indent}///")
    out += wrap_doc(
        "Runs the `async` operation in a task; callbacks run on the API's `callbackQueue`, and cancelling the "
        "future cancels the task (and its request).", indent)
    out += [f"{indent}/// {line}".rstrip() for line in parameter_docs]
    returns_lines = wrap_doc(future_returns(returns), indent, "/// - Returns: ")
    out += [returns_lines[0]] + [line.replace("/// - Returns: ", "///   ", 1) for line in returns_lines[1:]]
    if "noasync" in options:
        what, _, fix = options["noasync"].partition(";")
        message = f"Future overload: only starts {what.strip()}. In async code (main.swift too) use @main, or {fix.strip()}"
        out += [f"{indent}@available(", f"{indent}    *, noasync,"]
        if len(f'{indent}    message: "{message}"') <= LINE_LIMIT:
            out.append(f'{indent}    message: "{message}"')
        else:
            out += [f"{indent}    message:", f'{indent}        "{message}"']
        out.append(f"{indent})")
    if DISFAVORED not in attributes:
        raise Failure(f"{where}: mark the async operation {DISFAVORED}: with the async and Future forms equally "
                      "favoured, a mistake inside a chain of Future calls makes the type checker try every "
                      "combination and give up (issue 15 item 17); in async code the async form still wins")
    for attribute in attributes:
        if attribute == DISFAVORED:
            continue
        if attribute.startswith("@available"):
            raise Failure(f"{where}: the async operation has its own @available; write its twin by hand")
        out.append(f"{indent}{attribute}")
    head = f"public {static or ''}func {name}{generics or ''}("
    tail = f") -> Future<{result}>{where_clause or ''} {{"
    single = f"{indent}{head}{', '.join(parameters)}{tail}"
    if len(single) <= LINE_LIMIT:
        out.append(single)
    else:
        out.append(f"{indent}{head}")
        out += [f"{indent}    {parameter}," for parameter in parameters[:-1]]
        out.append(f"{indent}    {parameters[-1]}")
        out.append(f"{indent}{tail}")
    helper = options.get("via") or ("Self" if typename in PROTOCOLS else "self")
    receiver = "Self" if static else "self"
    call = f"try await {receiver}.{name}({', '.join(argument(parameter) for parameter in parameters)})"
    helper = "" if helper == "self" else f"{helper}."
    one_line = f"{indent}    {helper}future {{ {call} }}"
    if len(one_line) <= LINE_LIMIT:
        out.append(one_line)
    else:
        out += [f"{indent}    {helper}future {{", f"{indent}        {call}", f"{indent}    }}"]
    out.append(f"{indent}}}")
    return out


def generate():
    outputs = {}
    for area in SCANNED:
        folder = os.path.join(SOURCES, area)
        paths = []
        for directory, _, filenames in os.walk(folder):
            paths += [os.path.relpath(os.path.join(directory, name), folder) for name in filenames]
        for relative in sorted(paths):
            filename = os.path.basename(relative)
            if not filename.endswith(".swift"):
                continue
            operations = parse_file(os.path.join(folder, relative))
            if not operations:
                continue
            stem = filename[: -len(".swift")]
            source = f"Sources/CRUDKit/{area}/{relative}"
            out = [
                f"// Generated by Scripts/generate-future-twins.py from {source}: do not edit.",
                "// Each function is the `Future` twin of the `async` operation marked `// twin: future` there.",
                "",
                "import Foundation",
            ]
            previous_header = None
            for header, typename, options, doc, attributes, declaration, where in operations:
                if header != previous_header:
                    if previous_header is not None:
                        out.append("}")
                    out += ["", f"{header} {{"]
                    previous_header = header
                else:
                    out.append("")
                out += twin(typename, options, doc, attributes, declaration, where)
            out.append("}")
            outputs[f"FutureTwins+{stem.replace('+', '')}.swift"] = "\n".join(out) + "\n"
    return outputs


def main():
    global ROOT, SOURCES
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--output", default=GENERATED, help="where to write the files (default: %(default)s)")
    parser.add_argument("--root", default=ROOT, help="the package to read (default: this script's)")
    arguments = parser.parse_args()
    ROOT = os.path.abspath(arguments.root)
    SOURCES = os.path.join(ROOT, "Sources", "CRUDKit")
    try:
        outputs = generate()
    except Failure as failure:
        print(f"generate-future-twins: {failure}", file=sys.stderr)
        return 1
    os.makedirs(arguments.output, exist_ok=True)
    for existing in os.listdir(arguments.output):
        if existing.startswith("FutureTwins+") and existing not in outputs:
            os.remove(os.path.join(arguments.output, existing))
    for name, text in sorted(outputs.items()):
        with open(os.path.join(arguments.output, name), "w") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
