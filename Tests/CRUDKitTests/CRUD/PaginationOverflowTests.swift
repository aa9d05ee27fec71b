import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A page or offset at the edge of `Int` in the caller's query ends the walk instead of trapping on overflow
/// (`current + 1`, `current + count`, `current - firstPage + 1`). Before, `page(["offset": "\(Int.max)"])` crashed
/// the process.
@Suite struct PaginationOverflowTests {
    /// Every list request answers two people, whatever it asks.
    private static func api(_ pagination: Pagination) -> API {
        let transport = StubTransport().on(
            .get, "people",
            .json(
                text:
                    #"[{"id": 1, "first_name": "A", "last_name": "1"}, {"id": 2, "first_name": "B", "last_name": "2"}]"#,
                headers: ["X-Total-Count": "\(Int.max)"]))
        var conventions = APIConventions.standard
        conventions.pagination = pagination
        return API(baseURL: testBase, conventions: conventions, transport: transport)
    }

    @Test(arguments: [
        (Pagination.offset(limit: 2), "offset", "\(Int.max)"),
        (Pagination.offset(limit: 2), "offset", "\(Int.max - 1)"),
        (Pagination.pageNumber(pageSize: 2), "page", "\(Int.max)"),
        (Pagination.pageNumber(pageSize: 2), "page", "\(Int.min)"),
        (Pagination.pageNumber(firstPage: 0, pageSize: 2), "page", "\(Int.min)"),
    ])
    func aPageAtTheEdgeOfIntEndsTheWalk(pagination: Pagination, parameter: String, value: String) async throws {
        let scope = Member.using(Self.api(pagination))
        let page = try await scope.page([parameter: .string(value)])
        #expect(page.items.count == 2)
        #expect(page.next == nil)
        // The walk ends without trapping, and says it is short of the total the server declared.
        var walked: [Member] = []
        do {
            for try await member in scope.all([parameter: .string(value)]) { walked.append(member) }
            Issue.record("the walk ended quietly with 2 of a declared \(Int.max)")
        } catch CRUDError.incompleteList(let shortfall) {
            #expect(shortfall.received == 2 && shortfall.declaredTotal == Int.max)
        }
        #expect(walked.count == 2)
    }

    /// Ordinary values still page on.
    @Test func anOrdinaryOffsetStillHasANextPage() async throws {
        let page = try await Member.using(Self.api(.offset(limit: 2))).page(["offset": "4"])
        #expect(page.next?.query["offset"] == "6")
    }
}
