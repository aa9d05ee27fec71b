/// Finds the properties and unions that contain, by value, the type that holds them (a recursive schema, `A.b: B`
/// and `B.a: A?`, or `Node.parent: Node?`): a Swift struct cannot, so those properties are stored in a box
/// (`@Indirect`) and those unions are `indirect enum`s. Arrays and dictionaries already store their elements apart.
/// Iterative (Kosaraju's strongly connected components): no stack depth grows with the document.
enum RecursiveStorage {
    /// The declarations with `indirect` set where a value would contain itself.
    /// - Returns: The declarations, and whether any property is boxed (the `Indirect` wrapper must be emitted).
    static func mark(_ declarations: [Declaration]) -> (declarations: [Declaration], boxes: Bool) {
        var edges: [String: Set<String>] = [:]
        var pending = declarations
        while let declaration = pending.popLast() {
            switch declaration {
            case .structure(let structure):
                var targets = edges[structure.name] ?? []
                for property in structure.properties {
                    if let target = contained(property.type) { targets.insert(target) }
                }
                edges[structure.name] = targets
                pending += structure.nested
            case .union(let union):
                edges[union.name, default: []].formUnion(union.cases.compactMap { contained($0.type) })
            case .alias(let name, let type, _):
                if let target = contained(type) { edges[name, default: []].insert(target) }
            case .stringEnum: break
            }
        }
        let component = components(edges)
        func cyclic(_ from: String, _ to: String) -> Bool {
            guard let a = component[from], let b = component[to] else { return false }
            return a == b
        }
        var boxes = false
        func marked(_ declaration: Declaration) -> Declaration {
            switch declaration {
            case .structure(var structure):
                for index in structure.properties.indices {
                    guard let target = contained(structure.properties[index].type),
                        cyclic(structure.name, target)
                    else { continue }
                    structure.properties[index].indirect = true
                    boxes = true
                }
                structure.nested = structure.nested.map(marked)
                return .structure(structure)
            case .union(var union):
                union.indirect = union.cases.contains { contained($0.type).map { cyclic(union.name, $0) } ?? false }
                return .union(union)
            case .alias, .stringEnum:
                return declaration
            }
        }
        // Nesting is as deep as the document's inline objects; `marked` recurses over it as the emitter does.
        let result = declarations.map(marked)
        return (result, boxes)
    }

    /// The type a property of `type` stores inline: `nil` for arrays and dictionaries (stored apart) and for
    /// `JSON`; the last name of a qualified one.
    static func contained(_ type: String) -> String? {
        guard !type.hasPrefix("["), type != "JSON" else { return nil }
        return type.split(separator: ".").last.map(String.init)
    }

    /// Each node's strongly connected component, where a node alone is its own component only when it has an
    /// edge to itself; nodes on no cycle are left out.
    static func components(_ edges: [String: Set<String>]) -> [String: Int] {
        let nodes = Set(edges.keys).union(edges.values.flatMap { $0 }).sorted()
        var reverse: [String: [String]] = [:]
        for (from, targets) in edges {
            for to in targets { reverse[to, default: []].append(from) }
        }
        // First pass: finishing order on the graph, iteratively.
        var visited: Set<String> = []
        var order: [String] = []
        for start in nodes where !visited.contains(start) {
            var stack: [(node: String, next: [String])] = [(start, Array(edges[start] ?? []))]
            visited.insert(start)
            while !stack.isEmpty {
                if let next = stack[stack.count - 1].next.popLast() {
                    if visited.insert(next).inserted { stack.append((next, Array(edges[next] ?? []))) }
                } else {
                    order.append(stack.removeLast().node)
                }
            }
        }
        // Second pass: components on the reversed graph, in reverse finishing order.
        var component: [String: Int] = [:]
        var members: [Int: [String]] = [:]
        var count = 0
        for start in order.reversed() where component[start] == nil {
            var stack = [start]
            component[start] = count
            while let node = stack.popLast() {
                members[count, default: []].append(node)
                for previous in reverse[node] ?? [] where component[previous] == nil {
                    component[previous] = count
                    stack.append(previous)
                }
            }
            count += 1
        }
        return component.filter { node, index in
            (members[index]?.count ?? 0) > 1 || edges[node]?.contains(node) == true
        }
    }
}
