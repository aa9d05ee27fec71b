/// Day counts and dates of the proleptic Gregorian calendar, without Foundation's `Calendar` (Howard Hinnant's
/// `days_from_civil` and `civil_from_days`, exact for every year an `Int` day count can hold).
///
/// The one civil-calendar helper of the modules above CRUDKitCore: HTTP dates and cookie `Expires` dates are read
/// with it (CRUDKitHTTP) and HTTP dates written with it (CRUDKitTesting). CRUDKitJSON, beside CRUDKitCore at the
/// bottom of the layers, keeps its own copy for ISO 8601 timestamps.
package enum CivilCalendar {
    /// The days in `month` (1–12) of `year`: 28 or 29 for February (leap years by the Gregorian rule), 30 or 31
    /// for the others.
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to `year`-`month`-`day` (negative before it). `month` is 1–12 and `day` 1–31; the
    /// caller checks them, and a day past its month's end counts on into the next month.
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (before it when negative): its year, month (1–12) and day (1–31).
    package static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
