import CRUDKit
import Foundation

// Deliberately wrong: `.ci/typecheck.sh` expects a type error here, reported quickly (not "unable to type-check
// this expression in reasonable time").

func wrongBirthday(of id: Int) -> Future<String> {
    Person.read(id: id)
        .flatMap { person in person.update() }
        .flatMap { person in Person.list(["last_name": .string(person.lastName), "page": "\(1)"]) }
        .map { people in people.count + 1 }
        .flatMap { count in Post(title: "\(count)").create() }
        .map { post in post.id }  // Int?, but the function promises a String
}
