import Foundation
import Testing

@testable import CRUDKit

/// RFC 3339 beyond the common form: a leap second (§5.7) and a space for `T` (§5.6).
@Suite struct TimestampLeapSecondTests {
    private struct Event: Codable { var at: Date }

    private static func date(_ text: String) -> Date? {
        try? JSONCoding.default.decode(Event.self, from: Data(#"{"at": "\#(text)"}"#.utf8)).at
    }

    /// A leap second is the next second (what `Date`, which counts none, can say), a fraction kept; the same
    /// instant written with an offset reads the same.
    @Test func aLeapSecondIsTheNextSecond() throws {
        let midnight = try #require(Self.date("2017-01-01T00:00:00Z"))
        #expect(Self.date("2016-12-31T23:59:60Z") == midnight)
        #expect(Self.date("2017-01-01T08:59:60+09:00") == midnight)
        #expect(Self.date("2016-12-31T18:29:60-05:30") == midnight)
        #expect(Self.date("2016-12-31t23:59:60z") == midnight)
        let half = try #require(Self.date("2016-12-31T23:59:60.5Z"))
        #expect(half.timeIntervalSince(midnight) == 0.5)
        #expect(Self.date("2015-06-30T23:59:60Z") == Self.date("2015-07-01T00:00:00Z"))
        // Order is kept with the second before it.
        #expect(try #require(Self.date("2016-12-31T23:59:59.999Z")) < midnight)
    }

    /// A second of 60 anywhere but 23:59:60 UTC on the last day of a month is refused, as is 61.
    @Test(arguments: [
        "2016-12-31T23:58:60Z", "2016-12-31T22:59:60Z", "2016-12-30T23:59:60Z", "2017-01-01T00:00:60Z",
        "2016-12-31T23:59:60+01:00", "2016-12-31T23:59:61Z", "2016-02-28T23:59:60Z", "2016-12-31T23:59:6Z",
    ])
    func aSixtiethSecondElsewhereIsRefused(text: String) {
        #expect(Self.date(text) == nil, "\(text)")
    }

    /// A space may stand for `T` (PostgreSQL, Python's `str(datetime)`); an offset is still required, and only one
    /// space is accepted.
    @Test func aSpaceMayStandForT() throws {
        let expected = try #require(Self.date("2024-05-01T12:30:00.123456Z"))
        #expect(Self.date("2024-05-01 12:30:00.123456Z") == expected)
        #expect(Self.date("2024-05-01 14:30:00.123456+02:00") == expected)
        #expect(Self.date("2024-05-01 12:30:00.123456+00") == expected)
        #expect(Self.date("2024-05-01 12:30:00") == nil, "a local time must not be guessed")
        #expect(Self.date("2024-05-01  12:30:00Z") == nil)
        #expect(Self.date("2024-05-01\t12:30:00Z") == nil)
        #expect(Self.date("2024-05-01_12:30:00Z") == nil)
        // Writing still uses `T`.
        let written = try JSONCoding.default.encodeJSON(Event(at: expected))
        #expect(written["at"].string == "2024-05-01T12:30:00.123456Z")
    }
}
