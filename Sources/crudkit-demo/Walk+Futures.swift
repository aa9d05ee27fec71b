import CRUDKit

extension Walk {
    /// The same walk written with Futures: one chain of `flatMap`s, each step checked in a `map`. Synchronous code
    /// (this function is not `async`), so every operation picks its `Future` overload.
    ///
    /// - Returns: A future that succeeds when every step passed, or fails with the first ``StepFailure``.
    func runWithFutures() -> Future<Okay> {
        reporter.heading("Futures")
        reporter.begin("create")
        return ada.create()
            .map { made in
                self.made.record(made)
                return try passed(checkCreated(made), made)
            }
            .flatMap { made in
                let id = try id(of: made)
                reporter.begin("read")
                return Person.read(id: id)
                    .map { read in try passed(checkRead(read, expected: made), made) }
            }
            .flatMap { made in
                reporter.begin("list")
                return Person.list(listQuery)
                    .map { people in try passed(checkListed(people, containing: made), made) }
            }
            .flatMap { made in
                var changing = made
                changing.age = 37
                changing.favoriteColor = "green"
                let changed = changing
                reporter.begin("update")
                return changed.update()
                    .map { replaced in try passed(checkReplaced(replaced, sent: changed), replaced) }
            }
            .flatMap { made in
                var editing = made
                editing.favoriteColor = patchedColor
                let edited = editing
                reporter.begin("patch")
                return edited.update(from: made)
                    .map { patched in try passed(checkPatched(patched, sent: edited, original: made), patched) }
            }
            .flatMap { made in
                reporter.begin("all pages")
                let created = relatives.reduce(Future(value: [made])) { chain, relative in
                    chain.flatMap { people in
                        relative.create().map { relation in
                            self.made.record(relation)
                            return people + [relation]
                        }
                    }
                }
                return created.flatMap { people in
                    reporter.resetExchanges()
                    return Person.all(pagesQuery).collect()
                        .map { everyone in try passed(checkAllPages(everyone, created: people), people) }
                }
            }
            .flatMap { people in
                reporter.begin("validation")
                return outcome(of: invalid.create())
                    .map { rejected in
                        if case .success(let accepted) = rejected { self.made.record(accepted) }
                        return try passed(checkRejected(rejected), people)
                    }
            }
            .flatMap { people in
                reporter.begin("delete")
                let deleted = people.reduce(Future(value: Okay())) { chain, person in
                    chain.flatMap { _ in
                        person.delete().map { okay in
                            if let id = person.id { self.made.forget(id) }
                            return okay
                        }
                    }
                }
                return deleted.map { okay in try passed(checkDeleted(okay, count: people.count), people) }
            }
            .flatMap { people in
                guard let first = people.first else { throw StepFailure(description: "nobody was created") }
                let id = try id(of: first)
                reporter.begin("404")
                return outcome(of: Person.read(id: id))
                    .map { missing in try passed(checkNotFound(missing, id: id), Okay()) }
            }
    }

    /// Prints `detail` as the current step's check and passes `value` on.
    private func passed<Value>(_ detail: String, _ value: Value) -> Value {
        reporter.pass(detail)
        return value
    }

    /// A future that always succeeds, with the outcome of `future`.
    private func outcome<Value>(of future: Future<Value>) -> Future<Result<Value, any Error>> {
        let promise = Promise<Result<Value, any Error>>()
        future.onCompleteInline { result in _ = promise.succeed(result) }
        return promise.future
    }
}
