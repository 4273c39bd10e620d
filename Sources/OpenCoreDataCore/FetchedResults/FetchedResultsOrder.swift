import Foundation

/// The order of a fetch request's sort descriptors, for placing one object among many: the
/// object's sort values are read once, then compared with each object the binary search
/// probes. A descriptor on one of the entity's attributes compares stored values directly
/// (no boxing into `NSNumber`); any other descriptor, and any pair of values whose order is
/// not plain, is compared as `NSSortDescriptor.compare(_:to:)` compares, so the two agree.
final class FetchedResultsOrder {
    /// A value to sort by: an attribute's stored value, or a key path's value.
    enum SortValue {
        case stored(PrimitiveValue)
        case keyPath(Any?)
    }

    let descriptors: [NSSortDescriptor]
    /// The attribute slot each descriptor reads, by entity (nil: not a plain attribute).
    private var slotsByEntity: [ObjectIdentifier: [Int?]] = [:]

    init(_ descriptors: [NSSortDescriptor]) {
        self.descriptors = descriptors
    }

    /// The values `object` sorts by, one per descriptor.
    func sortValues(of object: NSManagedObject) -> [SortValue] {
        let slots = self.slots(for: object.entity)
        return descriptors.indices.map { index in
            if let slot = slots[index] { return .stored(object.primitive(at: slot)) }
            return .keyPath(KeyPathValue.value(of: object, keyPath: descriptors[index].key))
        }
    }

    /// How `object` sorts against an object whose sort values are `values`.
    func order(of object: NSManagedObject, against values: [SortValue]) -> ComparisonResult {
        let slots = self.slots(for: object.entity)
        for (index, descriptor) in descriptors.enumerated() {
            let result: ComparisonResult
            switch (slots[index], values[index]) {
            case let (slot?, .stored(other)):
                let own = object.primitive(at: slot)
                result = Self.plainOrder(own, other, descriptor)
                    ?? Self.generalOrder(own.objectValue(for: descriptor), other.objectValue(for: descriptor), descriptor)
            case let (slot?, .keyPath(other)):
                result = Self.generalOrder(object.primitive(at: slot).objectValue(for: descriptor), other, descriptor)
            case let (nil, .stored(other)):
                result = Self.generalOrder(KeyPathValue.value(of: object, keyPath: descriptor.key), other.objectValue(for: descriptor), descriptor)
            case let (nil, .keyPath(other)):
                result = Self.generalOrder(KeyPathValue.value(of: object, keyPath: descriptor.key), other, descriptor)
            }
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    private func slots(for entity: NSEntityDescription) -> [Int?] {
        if let slots = slotsByEntity[ObjectIdentifier(entity)] { return slots }
        let properties = entity.layout.propertiesByName
        let slots = descriptors.map { descriptor -> Int? in
            guard let key = descriptor.key, !key.contains("."),
                  let attribute = properties[key] as? NSAttributeDescription, attribute.attributeSlot >= 0 else { return nil }
            return attribute.attributeSlot
        }
        slotsByEntity[ObjectIdentifier(entity)] = slots
        return slots
    }

    /// The order of two stored values where it is plain — nil first, numbers by value, dates
    /// by time, strings by code point for `compare:` — or nil for the general comparison.
    private static func plainOrder(_ lhs: PrimitiveValue, _ rhs: PrimitiveValue, _ descriptor: NSSortDescriptor) -> ComparisonResult? {
        let ascending: ComparisonResult
        switch (lhs, rhs) {
        case (.null, .null): ascending = .orderedSame
        case (.null, _): ascending = .orderedAscending
        case (_, .null): ascending = .orderedDescending
        case let (.integer(left), .integer(right)): ascending = compare(left, right)
        case let (.double(left), .double(right)) where !left.isNaN && !right.isNaN: ascending = compare(left, right)
        case let (.bool(left), .bool(right)): ascending = compare(left ? 1 : 0, right ? 1 : 0)
        case let (.date(left), .date(right)): ascending = compare(left, right)
        case let (.string(left), .string(right)) where descriptor.stringOrdering == .binary:
            ascending = ValueComparison.compareStrings(left, right)
        default: return nil
        }
        return descriptor.ascending ? ascending : ascending.reversed
    }

    private static func compare<T: Comparable>(_ left: T, _ right: T) -> ComparisonResult {
        left < right ? .orderedAscending : (left > right ? .orderedDescending : .orderedSame)
    }

    private static func generalOrder(_ lhs: Any?, _ rhs: Any?, _ descriptor: NSSortDescriptor) -> ComparisonResult {
        let order = ValueComparison.sortOrder(lhs, rhs, strings: descriptor.stringOrdering)
        return descriptor.ascending ? order : order.reversed
    }
}

private extension PrimitiveValue {
    /// The value as `value(forKey:)` would give it, for the general comparison.
    func objectValue(for descriptor: NSSortDescriptor) -> Any? {
        switch self {
        case .integer(let value): value
        case .double(let value): value
        case .bool(let value): value
        default: objectValue(for: .undefinedAttributeType)
        }
    }
}
