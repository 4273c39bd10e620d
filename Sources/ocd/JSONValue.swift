import Foundation
import OpenCoreData

/// An attribute value as `ocd` prints it: JSON numbers, strings and Booleans; dates in ISO 8601
/// (UTC, with fractional seconds), data in base64, UUIDs and URLs as strings, decimals as
/// strings (so that no digit is lost), anything else by its description.
enum JSONValue: Encodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)

    init(_ value: Any?, type: NSAttributeType) {
        guard let value else { self = .null; return }
        switch (value, type) {
        case (let number as NSNumber, .booleanAttributeType): self = .bool(number.boolValue)
        case (let number as NSNumber, .integer16AttributeType), (let number as NSNumber, .integer32AttributeType),
             (let number as NSNumber, .integer64AttributeType):
            self = .integer(number.int64Value)
        case (let number as NSNumber, _): self = .double(number.doubleValue)
        case (let decimal as Decimal, _): self = .string("\(decimal)")
        case (let date as Date, _): self = .string(Self.dateFormatter.string(from: date))
        case (let data as Data, _): self = .string(data.base64EncodedString())
        case (let uuid as UUID, _): self = .string(uuid.uuidString)
        case (let url as URL, _): self = .string(url.absoluteString)
        case (let string as String, _): self = .string(string)
        default: self = .string("\(value)")
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }

    /// The value in text output: strings quoted, the rest as in JSON.
    var text: String {
        switch self {
        case .null: "nil"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        }
    }

    nonisolated(unsafe) private static let dateFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
