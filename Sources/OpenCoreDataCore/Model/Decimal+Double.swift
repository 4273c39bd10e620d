import Foundation

extension Decimal {
    /// The double nearest to this decimal. `NSDecimalNumber.doubleValue` on Linux can be off in
    /// the last bits (3.3333333332999993 comes back as 3.333333333299999), which would change a
    /// value on every save; parsing the decimal's exact text rounds correctly.
    package var nearestDouble: Double {
        Double(description) ?? NSDecimalNumber(decimal: self).doubleValue
    }
}
