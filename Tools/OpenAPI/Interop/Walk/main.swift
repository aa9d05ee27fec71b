// The CRUD walk .ci/openapi.sh runs with models generated from the live servers' own schemas: Django REST
// framework (drf-spectacular, OpenAPI 3.0) and FastAPI (/openapi.json, OpenAPI 3.1). Copied into the scratch
// package (.build-openapi-scratch) with the generated DRFModels and FastAPIModels modules; not built otherwise.
import CRUDKit
import DRFModels
import FastAPIModels
import Foundation

nonisolated(unsafe) var failures = 0

func check(_ condition: Bool, _ what: String, line: Int = #line) {
    print(condition ? "  ok   \(what)" : "  FAIL \(what) (line \(line))")
    if !condition { failures += 1 }
}

func expectStatus(_ status: Int, _ what: String, _ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        check(false, "\(what): expected \(status), got success")
        return nil
    } catch {
        check((error as? CRUDError)?.status == status, "\(what) → \(status)")
        return error
    }
}

func walkDRF(_ base: URL) async throws {
    print("Django REST framework at \(base) (models from /api/schema/):")
    let api = API(baseURL: base, conventions: DRFModels.APIDocument.conventions)
    let people = DRFModels.Person.using(api)
    var ada = try await people.create(
        DRFModels.Person(firstName: "Ada", lastName: "Lovelace", age: .value(36), favoriteColor: .value("green")))
    check(
        ada.id != nil && ada.createdAt != nil, "create: id \(ada.id.map(String.init) ?? "nil") and created_at read back"
    )
    let id = try require(ada.id)
    let read = try await people.read(id: id)
    check(read == ada, "read: the same value")
    for index in 0..<11 {
        _ = try await people.create(DRFModels.Person(firstName: "P\(index)", lastName: "Walk"))
    }
    let all = try await people.all().collect()
    check(all.count >= 12 && all.contains { $0.id == id }, "list all pages: \(all.count) people")
    var edited = read
    edited.lastName = "King"
    edited.email = "ada@example.com"
    let put = try await people.update(edited)
    check(put.lastName == "King" && put.email == "ada@example.com" && put.age == .value(36), "PUT")
    var patched = put
    patched.age = .value(37)
    let afterPatch = try await people.update(patched, from: put)
    check(afterPatch.age == .value(37) && afterPatch.lastName == "King", "PATCH")
    var cleared = afterPatch
    cleared.favoriteColor = .null
    let afterClear = try await people.update(cleared, from: afterPatch)
    let reread = try await people.read(id: id)
    check(afterClear.favoriteColor == .null && reread.favoriteColor == .null, "clear a nullable field")
    ada = afterClear
    let posts = DRFModels.Post.scoped(to: ada, api: api)
    let post = try await posts.create(DRFModels.Post(title: "Notes", body: "On the engine"))
    let listed = try await posts.list()
    check(post.person == id && listed.map(\.id) == [post.id], "nested create/list")
    if let error = await expectStatus(
        400, "field errors",
        {
            _ = try await people.create(DRFModels.Person(firstName: "", lastName: "X"))
        })
    {
        check(api.serverErrors(in: error)?.fieldErrors["first_name"]?.isEmpty == false, "400 names first_name")
    }
    try await people.delete(id: id)
    _ = await expectStatus(404, "read after delete", { _ = try await people.read(id: id) })
}

func walkFastAPI(_ base: URL) async throws {
    print("FastAPI at \(base) (models from /openapi.json):")
    let api = API(baseURL: base, conventions: FastAPIModels.APIDocument.conventions)
    let people = PersonOut.using(api)
    let made = try await people.create(
        PersonOut(
            firstName: "Grace", lastName: "Hopper", nickname: .value("Amazing"), favoriteColor: .value(.blue),
            birthday: .value(FastAPIModels.CalendarDate(year: 1906, month: 12, day: 9)),
            balance: .value(Decimal(string: "123456789012345678.91")!)))
    let id = try require(made.id)
    check(made.token != nil && made.createdAt != nil, "create: id \(id), server's token and created_at read back")
    check(made.balance == .value(Decimal(string: "123456789012345678.91")!), "decimal kept exactly")
    let read = try await people.read(id: id)
    check(read == made, "read: the same value")
    for index in 0..<6 {
        _ = try await people.create(PersonOut(firstName: "F\(index)", lastName: "Walk"))
    }
    let all = try await people.all().collect()
    check(all.count >= 7 && all.contains { $0.id == id }, "list all pages (Link header): \(all.count) people")
    var edited = read
    edited.lastName = "Murray Hopper"
    let put = try await people.update(edited)
    check(put.lastName == "Murray Hopper" && put.nickname == .value("Amazing"), "PUT")
    var patched = put
    patched.age = .value(85)
    let afterPatch = try await people.update(patched, from: put)
    check(afterPatch.age == .value(85), "PATCH")
    var cleared = afterPatch
    cleared.nickname = .null
    let afterClear = try await people.update(cleared, from: afterPatch)
    let reread = try await people.read(id: id)
    check(afterClear.nickname == .null && reread.nickname == .null, "clear a nullable field")
    let activated = try await API.withShared(api) { try await afterClear.activate() }
    check(activated.active == true, "custom action activate()")
    let posts = PostOut.scoped(to: afterClear, api: api)
    let post = try await posts.create(PostOut(title: "COBOL"))
    let listed = try await posts.list()
    check(post.personId == id && listed.map(\.id) == [post.id], "nested create/list")
    if let error = await expectStatus(
        422, "field errors",
        {
            _ = try await people.create(PersonOut(firstName: "", lastName: "X"))
        })
    {
        check(
            api.serverErrors(in: error)?.fieldErrors.keys.contains { $0.contains("first_name") } == true,
            "422 names first_name")
    }
    try await people.delete(id: id)
    _ = await expectStatus(404, "read after delete", { _ = try await people.read(id: id) })
}

struct Missing: Error {}

func require<T>(_ value: T?) throws -> T {
    guard let value else { throw Missing() }
    return value
}

let environment = ProcessInfo.processInfo.environment
guard let drf = environment["CRUDKIT_DRF_URL"].flatMap(URL.init(string:)),
    let fastAPI = environment["CRUDKIT_FASTAPI_URL"].flatMap(URL.init(string:))
else {
    print("set CRUDKIT_DRF_URL and CRUDKIT_FASTAPI_URL")
    exit(2)
}
do {
    try await walkDRF(drf)
    try await walkFastAPI(fastAPI)
} catch {
    print("  FAIL \(error)")
    failures += 1
}
print(failures == 0 ? "openapi walk: all passed" : "openapi walk: \(failures) failure(s)")
exit(failures == 0 ? 0 : 1)
