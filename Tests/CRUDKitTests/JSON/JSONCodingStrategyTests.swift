import CRUDKit
import Foundation
import Testing

/// Keys and dates are chosen separately: camelCase keys with ISO-8601 dates in whole seconds, as Vapor's default
/// coders write and read them, are expressible (issue 15, item 7).
@Suite struct JSONCodingStrategyTests {
    struct Event: Codable, Equatable {
        var eventName: String
        var startsAt: Date
    }

    /// 2026-11-23T21:04:13.250Z
    private static let date = Date(timeIntervalSince1970: 1_795_467_853.25)

    /// What a Vapor server decodes with: `JSONDecoder` with `.iso8601` dates and keys as declared.
    private static func vaporDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    @Test(arguments: [JSONCoding.Engine.native, .foundation])
    func vaporCodingWritesCamelCaseKeysAndWholeSecondDates(engine: JSONCoding.Engine) throws {
        var coding = JSONCoding.vapor
        coding.engine = engine

        let data = try coding.encode(Event(eventName: "Launch", startsAt: Self.date))
        let json = try JSON(data: data)

        #expect(json["eventName"] == "Launch")
        #expect(json["startsAt"] == "2026-11-23T21:04:13Z")
        let decoded = try Self.vaporDecoder().decode(Event.self, from: data)
        #expect(decoded.startsAt == Date(timeIntervalSince1970: 1_795_467_853))
    }

    @Test func camelCaseKeysKeepTheDefaultDates() throws {
        // Keys as declared without giving up ISO-8601 (`.plain` switches dates to `Date`'s own number).
        let json = try JSONCoding.camelCase.encodeJSON(Event(eventName: "Launch", startsAt: Self.date))

        #expect(json["eventName"] == "Launch")
        #expect(json["startsAt"] == "2026-11-23T21:04:13.250Z")
        #expect(
            try JSONCoding.plain.encodeJSON(Event(eventName: "Launch", startsAt: Self.date))["startsAt"].string == nil)
    }

    @Test(arguments: [JSONCoding.Engine.native, .foundation])
    func wholeSecondDatesReadWithOrWithoutFractions(engine: JSONCoding.Engine) throws {
        var coding = JSONCoding(convertsSnakeCase: true, dates: .iso8601WholeSeconds)
        coding.engine = engine
        let body =
            Data(#"[{"event_name": "A", "starts_at": "2026-11-23T21:04:13Z"},"#.utf8)
            + Data(#"{"event_name": "B", "starts_at": "2026-11-23T21:04:13.250+00:00"}]"#.utf8)

        let events = try coding.decode([Event].self, from: body)

        #expect(events.map(\.startsAt) == [Date(timeIntervalSince1970: 1_795_467_853), Self.date])
        #expect(try coding.encodeJSON(events[1])["starts_at"] == "2026-11-23T21:04:13Z")
    }

    @Test func presetsKeepTheirMeaning() {
        #expect(JSONCoding.camelCase.convertsSnakeCase == false && JSONCoding.camelCase.dates == .iso8601)
        #expect(JSONCoding.vapor.convertsSnakeCase == false && JSONCoding.vapor.dates == .iso8601WholeSeconds)
        #expect(JSONCoding.plain.dates == .deferredToDate)
    }

    @Test func aDateBeforeNineteenSeventyIsCutDownToItsSecond() throws {
        let early = Date(timeIntervalSince1970: -0.5)
        #expect(try JSONCoding.vapor.encodeJSON(["at": early])["at"] == "1969-12-31T23:59:59Z")
    }
}
