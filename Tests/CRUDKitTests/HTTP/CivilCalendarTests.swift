import Foundation
import Testing

@testable import CRUDKit
@testable import CRUDKitHTTP

/// The one civil-calendar helper (proleptic Gregorian day counts) and the HTTP date reader built on it.
@Suite struct CivilCalendarTests {
    @Test func knownDaysFromDates() {
        #expect(CivilCalendar.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilCalendar.days(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilCalendar.days(year: 2000, month: 3, day: 1) == 11_017)
        #expect(CivilCalendar.days(year: 0, month: 3, day: 1) == -719_468)
        #expect(CivilCalendar.days(year: 0, month: 1, day: 1) == -719_528)
        #expect(CivilCalendar.days(year: -1, month: 12, day: 31) == -719_529)
    }

    @Test func datesAndDaysRoundTripDayByDay() {
        // About 4,800 years from 1316 BC, without an `#expect` per day (it would take seconds in a debug build).
        var previous = CivilCalendar.date(days: -1_200_001)
        for days in -1_200_000...567_000 {
            let date = CivilCalendar.date(days: days)
            if CivilCalendar.days(year: date.year, month: date.month, day: date.day) != days {
                Issue.record("\(days) became \(date), which counts another day")
                return
            }
            let nextDay = date.day == previous.day + 1 && date.month == previous.month && date.year == previous.year
            let nextMonth = date.day == 1 && (date.month == previous.month + 1 && date.year == previous.year)
            let nextYear = date.day == 1 && date.month == 1 && previous.month == 12 && date.year == previous.year + 1
            if !(nextDay || nextMonth || nextYear) {
                Issue.record("\(days): \(date) does not follow \(previous)")
                return
            }
            previous = date
        }
    }

    @Test func monthLengthsAreTheDaysBetweenFirstsOfMonths() {
        for year in 1596...2404 {
            for month in 1...12 {
                let next = month == 12 ? (year + 1, 1) : (year, month + 1)
                let length =
                    CivilCalendar.days(year: next.0, month: next.1, day: 1)
                    - CivilCalendar.days(year: year, month: month, day: 1)
                if CivilCalendar.daysIn(month: month, year: year) != length {
                    Issue.record("\(year)-\(month) has \(length) days")
                    return
                }
            }
        }
        #expect(CivilCalendar.daysIn(month: 2, year: 2000) == 29)
        #expect(CivilCalendar.daysIn(month: 2, year: 2100) == 28)
    }

    /// The cookie jar reads `Expires` with the same calendar: a day past its month's end is no date.
    @Test func cookieExpiresDatesUseTheCalendar() {
        #expect(CookieJar.parseDate("Thu, 29 Feb 2024 12:00:00 GMT") == Date(timeIntervalSince1970: 1_709_208_000))
        #expect(CookieJar.parseDate("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(CookieJar.parseDate("Wed, 21 Oct 2015 07:28:00 GMT") == Date(timeIntervalSince1970: 1_445_412_480))
        #expect(CookieJar.parseDate("Sun, 06-Nov-94 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(CookieJar.parseDate("Wed, 29 Feb 2023 00:00:00 GMT") == nil)
        #expect(CookieJar.parseDate("Mon, 29 Feb 2100 00:00:00 GMT") == nil)
        #expect(CookieJar.parseDate("Thu, 31 Apr 2024 00:00:00 GMT") == nil)
    }

    /// January and February of the year 0000 were read a day late (the year before March of year 0 is -1, and
    /// integer division rounded its era towards zero).
    @Test func anIMFFixdateInTheFirstMonthsOfYearZeroIsExact() {
        #expect(IMFFixdate.seconds("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(IMFFixdate.seconds("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(IMFFixdate.seconds("Sat, 01 Jan 0000 00:00:00 GMT") == -719_528 * 86_400)
        #expect(IMFFixdate.seconds("Tue, 29 Feb 0000 23:59:59 GMT") == -719_468 * 86_400 - 1)
    }
}
