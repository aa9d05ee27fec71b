import CRUDKit

extension Walk {
    /// The walk written with async/await: each step awaits its operation and checks what came back.
    func runAsync() async throws {
        reporter.heading("async/await")

        var made = try await step("create") {
            try checkCreated($0)
        } run: {
            let made = try await ada.create()
            self.made.record(made)
            return made
        }
        let id = try id(of: made)

        _ = try await step("read") {
            try checkRead($0, expected: made)
        } run: {
            try await Person.read(id: id)
        }

        _ = try await step("list") {
            try checkListed($0, containing: made)
        } run: {
            try await Person.list(listQuery)
        }

        var changed = made
        changed.age = 37
        changed.favoriteColor = "green"
        made = try await step("update") {
            try checkReplaced($0, sent: changed)
        } run: {
            try await changed.update()
        }

        var edited = made
        edited.favoriteColor = patchedColor
        let original = made
        made = try await step("patch") {
            try checkPatched($0, sent: edited, original: original)
        } run: {
            try await edited.update(from: original)  // only the fields that differ
        }

        var everyone = [made]
        _ = try await step("all pages") {
            try checkAllPages($0, created: everyone)
        } run: {
            for relative in relatives {
                let relation = try await relative.create()
                self.made.record(relation)
                everyone.append(relation)
            }
            reporter.resetExchanges()  // the check counts the page requests only
            var seen: [Person] = []
            for try await person in Person.all(pagesQuery) { seen.append(person) }
            return seen
        }

        _ = try await step("validation") {
            try checkRejected($0)
        } run: {
            let rejected = await outcome { try await invalid.create() }
            if case .success(let accepted) = rejected { self.made.record(accepted) }
            return rejected
        }

        let doomed = everyone
        _ = try await step("delete") {
            try checkDeleted($0, count: doomed.count)
        } run: {
            for person in doomed {
                try await person.delete()
                if let id = person.id { self.made.forget(id) }
            }
            return Okay()
        }

        _ = try await step("404") {
            try checkNotFound($0, id: id)
        } run: {
            await outcome { try await Person.read(id: id) }
        }
    }

    /// Runs one step: starts it in the reporter, runs `run`, checks its value and prints the check.
    private func step<Value>(
        _ name: String, check: (Value) throws -> String, run: () async throws -> Value
    ) async throws -> Value {
        reporter.begin(name)
        let value = try await run()
        reporter.pass(try check(value))
        return value
    }
}

/// The outcome of `body`, value or error.
func outcome<Value>(_ body: () async throws -> Value) async -> Result<Value, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
