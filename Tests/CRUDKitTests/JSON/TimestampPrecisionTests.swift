import Foundation
import Testing

@testable import CRUDKit

/// A date passes through a model unchanged: what Django REST framework (microseconds), Rails (milliseconds) or
/// Vapor (whole seconds) sends is what a PUT sends back, with both coding engines. Before, every fraction was
/// written with three digits, so `…13.123456Z` went back as `…13.123Z` and the server stored a changed time. A date
/// no timestamp can name is an encoding error, not a crash (`Int(whole)` trapped on an infinite date).
@Suite struct TimestampPrecisionTests {
    struct Appointment: Codable, Equatable {
        var at: Date
    }

    static let stamps = [
        "2026-11-23T21:04:13Z", "2026-11-23T21:04:13.100Z", "2026-11-23T21:04:13.250Z", "2026-11-23T21:04:13.999Z",
        "2026-11-23T21:04:13.123456Z", "2026-11-23T21:04:13.000001Z", "2026-11-23T21:04:13.999999Z",
        "1970-01-01T00:00:00.000001Z", "1969-12-31T23:59:59.500Z", "0001-01-01T00:00:00.123Z",
        "9999-12-31T23:59:59.999Z", "2000-02-29T12:00:00.010203Z", "2040-06-30T08:15:00.000250Z",
    ]

    @Test(arguments: [JSONCoding.Engine.native, .foundation])
    func aTimestampComesBackAsItWasRead(engine: JSONCoding.Engine) throws {
        var coding = JSONCoding.default
        coding.engine = engine
        for stamp in Self.stamps {
            let read = try coding.decode(Appointment.self, from: Data(#"{"at":"\#(stamp)"}"#.utf8))
            let written = String(decoding: try coding.encode(read), as: UTF8.self)
            #expect(written == #"{"at":"\#(stamp)"}"#, "\(stamp)")
            #expect(try coding.decode(Appointment.self, from: Data(written.utf8)) == read)
        }
    }

    /// Where a `Date` cannot hold a microsecond (the year 1: its `Double` steps by 8 µs there), what is written still
    /// reads back as the very same date.
    @Test func aDateBeyondMicrosecondsReadsBackAsTheSameDate() throws {
        for stamp in ["0001-01-01T00:00:00.123456Z", "0500-07-01T12:00:00.654321Z"] {
            let date = try #require(ISO8601Timestamp.date(from: stamp))
            let written = try #require(ISO8601Timestamp.string(from: date))
            #expect(ISO8601Timestamp.date(from: written) == date, "\(stamp) → \(written)")
        }
    }

    /// An offset or a longer fraction is normalised to UTC, keeping the instant to the date's own precision.
    @Test func otherSpellingsKeepTheirInstant() throws {
        let cases = [
            ("2026-11-23T23:04:13.123456+02:00", "2026-11-23T21:04:13.123456Z"),
            ("2026-11-23T21:04:13.1234567Z", "2026-11-23T21:04:13.123456700Z"),
            ("2026-11-23T21:04:13.120Z", "2026-11-23T21:04:13.120Z"),
        ]
        for (given, expected) in cases {
            let date = try #require(ISO8601Timestamp.date(from: given))
            let written = try #require(ISO8601Timestamp.string(from: date))
            let back = try #require(ISO8601Timestamp.date(from: written))
            #expect(abs(back.timeIntervalSince(date)) < 1e-6, "\(given) → \(written)")
            if written != expected { #expect(back == date, "\(given) → \(written), expected \(expected)") }
        }
    }

    @Test(arguments: [JSONCoding.Engine.native, .foundation])
    func aDateNoTimestampCanNameIsAnEncodingError(engine: JSONCoding.Engine) {
        var coding = JSONCoding.default
        coding.engine = engine
        for seconds in [Double.infinity, -.infinity, .nan, 1e300, -1e300, 253_402_300_800, -62_167_219_201] {
            #expect(throws: EncodingError.self, "\(seconds)") {
                try coding.encode(Appointment(at: Date(timeIntervalSince1970: seconds)))
            }
        }
        #expect(JSON(Date(timeIntervalSince1970: .infinity)) == .null)
        #expect(JSON(Date(timeIntervalSince1970: 1e300)) == .number(.double(1e300)))
        #expect(JSON(Date(timeIntervalSince1970: 0.25)) == "1970-01-01T00:00:00.250Z")
    }
}
