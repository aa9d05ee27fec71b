import CRUDKit
import Dispatch
import Foundation
import Testing

/// A recursive model (`replies: [Comment]`) decodes each level inside its parent's `init(from:)` or `init(json:)`:
/// no decoder can make that iterative. A server's document nested to the parser's limit (512) ran a 512 KB thread
/// (Apple's dispatch and task threads) out of stack in a debug build and crashed the process; the coders now
/// refuse to go deeper than the stack holds, with an error.
@Suite struct RecursiveModelStackTests {
    struct Comment: Codable, Equatable, JSONConvertible, JSONAttributable {
        var text: String
        var replies: [Comment]

        init(text: String, replies: [Comment]) {
            self.text = text
            self.replies = replies
        }

        init(json: JSON) throws {
            text = try json.required("text")
            replies = try json.required("replies")
        }

        var attributes: JSONAttributes { ["text": .set(text), "replies": .set(replies)] }
    }

    /// `{"text":"x","replies":[…]}` nested `levels` JSON levels deep (a comment is two: object and array).
    static func document(levels: Int) -> Data {
        let open = String(repeating: #"{"text":"x","replies":["#, count: levels / 2)
        return Data((open + #"{"text":"leaf","replies":[]}"# + String(repeating: "]}", count: levels / 2)).utf8)
    }

    /// A chain of `count` comments, each the only reply of the one before.
    static func chain(_ count: Int) -> Comment {
        var comment = Comment(text: "leaf", replies: [])
        for _ in 0..<count { comment = Comment(text: "x", replies: [comment]) }
        return comment
    }

    /// Runs `body` on a thread with a stack of `size` bytes and returns what it returned.
    static func onThread<Value: Sendable>(stack size: Int, _ body: @escaping @Sendable () -> Value) -> Value? {
        let done = DispatchSemaphore(value: 0)
        let box = Locked<Value?>(nil)
        let thread = Thread {
            box.withLock { $0 = body() }
            done.signal()
        }
        thread.stackSize = size
        thread.start()
        guard done.wait(timeout: .now() + 120) == .success else { return nil }
        return box.withLock { $0 }
    }

    /// "ok", or the error's description.
    static func outcome(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "ok"
        } catch {
            return "\(error)"
        }
    }

    @Test func decodingAModelNestedToTheParsersLimitFailsInsteadOfCrashing() throws {
        let data = Self.document(levels: 511)
        let outcomes = Self.onThread(stack: 512 * 1024) {
            [
                Self.outcome { _ = try JSONCoding.default.decode(Comment.self, from: data) },
                Self.outcome { _ = try JSON(data: data).decode(Comment.self) },
                Self.outcome { _ = try JSON(data: data).convert(Comment.self) },
            ]
        }
        let results = try #require(outcomes)
        #expect(results.count == 3)
        for result in results {
            #expect(result == "ok" || result.contains("stack"), "\(result.prefix(300))")
        }
    }

    @Test func encodingAModelNestedTooDeeplyFailsInsteadOfCrashing() throws {
        let outcome = Self.onThread(stack: 512 * 1024) {
            Self.outcome { _ = try JSONCoding.default.encode(Self.chain(255)) }
        }
        let result = try #require(outcome)
        #expect(result == "ok" || result.contains("stack"), "\(result.prefix(300))")
    }

    /// Comments nested this deep decode and encode on a 512 KB thread: 40, or 10 under a sanitizer, whose
    /// instrumented frames are several times larger.
    static let reasonableLevels = TestEnvironment.underSanitizer ? 10 : 40

    /// The check refuses only what the stack cannot hold: 40 levels of comments decode on a 512 KB thread, and the
    /// parser's limit decodes on an 8 MB one.
    @Test func reasonableNestingStillDecodes() throws {
        let shallow = Self.document(levels: 2 * Self.reasonableLevels)
        let small = Self.onThread(stack: 512 * 1024) {
            [
                Self.outcome { _ = try JSONCoding.default.decode(Comment.self, from: shallow) },
                Self.outcome { _ = try JSON(data: shallow).convert(Comment.self) },
                Self.outcome { _ = try JSONCoding.default.encode(Self.chain(Self.reasonableLevels)) },
            ]
        }
        #expect(small == ["ok", "ok", "ok"])

        let deep = Self.document(levels: 511)
        let large = Self.onThread(stack: 8 << 20) {
            Self.outcome {
                let comment = try JSONCoding.default.decode(Comment.self, from: deep)
                let again = try JSONCoding.default.decode(Comment.self, from: JSONCoding.default.encode(comment))
                guard again == comment, try JSON(data: deep).convert(Comment.self) == comment else {
                    throw CRUDError.invalidRequest(reason: "round trip changed the comment")
                }
            }
        }
        #expect(large == "ok")
    }
}
