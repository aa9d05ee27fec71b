import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A row of the test collection `people` whose one field reads the same in snake_case and camelCase codings.
struct Numbered: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var n: Int
}

/// A backend in `style` holding `count` rows `n = 1…count` with incrementing ids.
func numberedBackend(_ style: InMemoryBackend.Style, count: Int) -> InMemoryBackend {
    let backend = InMemoryBackend(style: style)
    backend.register("people", ids: .incrementing)
    for number in 0..<count { _ = backend.insert(["n": JSON(number + 1)], into: "people") }
    return backend
}

/// `Numbered` through an API on `transport` with `conventions`, paginated by `pagination` when given.
func numberedScope(
    _ transport: any Transport, conventions: APIConventions = .standard, pagination: CRUDKit.Pagination? = nil,
    base: URL = URL(string: "https://api.example.com")!
) -> ResourceScope<Numbered> {
    var conventions = conventions
    if let pagination { conventions.pagination = pagination }
    return Numbered.using(API(baseURL: base, conventions: conventions, transport: transport))
}

/// The `ListShortfall` of a walk that failed with ``CRUDError/incompleteList(_:)``, or `nil` (recording an issue)
/// when it ended otherwise.
func shortfall(
    of walk: PageSequence<Numbered>, sourceLocation: SourceLocation = #_sourceLocation
) async -> (items: [Int], shortfall: ListShortfall?) {
    var items: [Int] = []
    do {
        for try await row in walk { items.append(row.n) }
        Issue.record("the walk ended normally after \(items.count) items", sourceLocation: sourceLocation)
    } catch CRUDError.incompleteList(let shortfall) {
        return (items, shortfall)
    } catch {
        Issue.record("expected incompleteList, got \(error)", sourceLocation: sourceLocation)
    }
    return (items, nil)
}
