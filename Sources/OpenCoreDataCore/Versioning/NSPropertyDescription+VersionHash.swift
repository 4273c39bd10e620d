import Foundation

extension NSPropertyDescription {
    /// A 32-byte hash that identifies the property's schema, the same as Core Data computes.
    ///
    /// ```swift
    /// let name = NSAttributeDescription(name: "name", type: .stringAttributeType)
    /// name.versionHash            // 32 bytes; changes when the name, type, optionality… change
    /// ```
    /// What enters it (COREDATA-FORMAT.md §6, verified against the per-property hashes momc
    /// writes and against Apple's entity hashes):
    /// - every property: the name, `isOptional`, `isTransient` and `versionHashModifier`;
    /// - attributes: also `attributeType` and `preservesValueInHistoryOnDeletion`;
    /// - relationships: also the destination entity's name, the inverse's name, `maxCount`,
    ///   `minCount` and `isOrdered`.
    ///
    /// Not entering it: delete rules, indexing, default values, value transformers, class names,
    /// user info, renaming identifiers.
    ///
    /// Unverified guesses (no Apple oracle covers them): `allowsExternalBinaryDataStorage` adds a
    /// byte 0x01 after the other attribute fields; a relationship without an inverse hashes an
    /// empty inverse name. A fetched property hashes only the part every property shares.
    public var versionHash: Data {
        switch self {
        case let attribute as NSAttributeDescription: attribute.attributeVersionHash
        case let relationship as NSRelationshipDescription: relationship.relationshipVersionHash
        default: propertyInnerVersionHash
        }
    }

    /// Whether the property enters its entity's hash: attributes and relationships that are
    /// saved (fetched properties and transient properties do not).
    var entersEntityVersionHash: Bool {
        !isTransient && (self is NSAttributeDescription || self is NSRelationshipDescription)
    }

    /// The part every kind of property shares:
    /// `S(name ‖ u8(isOptional | isTransient << 1) ‖ u8(0) ‖ versionHashModifier?)`.
    var propertyInnerVersionHash: Data {
        var input = VersionHashInput()
        input.append(name)
        input.append(byte: (isOptional ? 1 : 0) | (isTransient ? 2 : 0))
        // A second flag byte, always 0 in Apple's hashes; what sets it is not known.
        input.append(byte: 0)
        if let versionHashModifier { input.append(versionHashModifier) }
        return input.sha256
    }
}

extension NSAttributeDescription {
    /// `S(property_inner ‖ u32(attributeType) ‖ [0x01 if preservesValueInHistoryOnDeletion])`,
    /// plus the unverified guess `[0x01 if allowsExternalBinaryDataStorage]`.
    var attributeVersionHash: Data { attributeVersionHash(around: []) }

    /// `around`: the composites this attribute is an element of (see `hasValueRules`).
    private func attributeVersionHash(around: [ObjectIdentifier]) -> Data {
        var input = VersionHashInput()
        input.append(propertyInnerVersionHash)
        input.append(uint32: Int(attributeType.rawValue))
        if preservesValueInHistoryOnDeletion { input.append(byte: 1) }
        // Unverified: no Apple hash of an attribute with external storage was available.
        if allowsExternalBinaryDataStorage { input.append(byte: 1) }
        // OpenCoreData's own (no Apple hash of a composite was available): each element's hash,
        // so that a change to an element changes the entity's hash and the store migrates.
        if let composite = self as? NSCompositeAttributeDescription, !around.contains(ObjectIdentifier(self)) {
            for element in composite.elements { input.append(element.attributeVersionHash(around: around + [ObjectIdentifier(self)])) }
        }
        return input.sha256
    }
}

extension NSRelationshipDescription {
    /// `S(property_inner ‖ destination name ‖ inverse name ‖ u32(maxCount) ‖ u32(minCount)
    /// ‖ [01 00 if ordered])`.
    ///
    /// A to-many with no maximum has `maxCount` 0 here as in Xcode's model files, so it hashes
    /// as Apple's does; a maximum of -1 or `Int.max` truncates to ff ff ff ff, as in Core Data.
    var relationshipVersionHash: Data {
        var input = VersionHashInput()
        input.append(propertyInnerVersionHash)
        input.append(destinationEntity?.name ?? "")
        // Unverified for a relationship without an inverse: assumed to add nothing.
        input.append(inverseRelationship?.name ?? "")
        input.append(uint32: maxCount)
        input.append(uint32: minCount)
        if isOrdered {
            input.append(byte: 1)
            input.append(byte: 0)
        }
        return input.sha256
    }
}
