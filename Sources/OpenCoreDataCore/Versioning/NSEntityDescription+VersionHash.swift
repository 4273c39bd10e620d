import Foundation

extension NSEntityDescription {
    /// A 32-byte hash that identifies the entity's schema, the same as Core Data computes; stores
    /// keep these (`NSStoreModelVersionHashes`) to recognise the model they were written with.
    ///
    /// ```swift
    /// let hash = model.entitiesByName["Person"]!.versionHash
    /// ```
    /// What enters it (COREDATA-FORMAT.md §6, verified against Apple's hashes in compiled models
    /// and in store metadata):
    /// `S(name ‖ u8(isAbstract) ‖ superentity's hash ‖ the version hashes of every saved
    /// attribute and relationship, inherited ones included, in property-name byte order ‖ each
    /// uniqueness constraint's property names joined by ".")`. Constraints the entity shares with
    /// an ancestor are left out, as Core Data does not repeat a parent's constraints in a child.
    ///
    /// Transient and fetched properties, the class name, user info, indexes and renaming
    /// identifiers do not enter it.
    ///
    /// Differences from Apple's Core Data:
    /// - Where Core Data puts an entity's `versionHashModifier` is not known; it is appended last
    ///   here (unverified).
    /// - Entities with derived attributes do not hash as Apple's do (Core Data's way of hashing
    ///   derived attributes is not known).
    ///
    /// The hash of an entity whose model is in use (frozen) is computed once; while the model can
    /// still be edited, every call computes it afresh.
    public var versionHash: Data {
        if let model = managedObjectModel, model.isFrozen {
            return model.versionHashCache.value(for: ObjectIdentifier(self)) { computeVersionHash() }
        }
        return computeVersionHash()
    }

    private func computeVersionHash() -> Data {
        var input = VersionHashInput()
        input.append(name ?? "")
        input.append(byte: isAbstract ? 1 : 0)
        if let superentity { input.append(superentity.versionHash) }
        let properties = allProperties.filter(\.entersEntityVersionHash)
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for property in properties { input.append(property.versionHash) }
        var inherited: Set<[String]> = []
        var ancestor = superentity
        while let entity = ancestor {
            inherited.formUnion(entity.uniquenessConstraintPropertyNames)
            ancestor = entity.superentity
        }
        // Several constraints follow each other with no separator: the oracles have at most one
        // constraint per entity, so whether Core Data puts one between them is not known.
        for constraint in uniquenessConstraintPropertyNames where !inherited.contains(constraint) {
            input.append(constraint.joined(separator: "."))
        }
        // Unverified: where Core Data puts the entity's modifier is not known.
        if let versionHashModifier { input.append(versionHashModifier) }
        return input.sha256
    }

    /// The uniqueness constraints with every element as a property name.
    var uniquenessConstraintPropertyNames: [[String]] {
        uniquenessConstraints.map { constraint in
            constraint.map { element in (element as? NSPropertyDescription)?.name ?? (element as? String) ?? "\(element)" }
        }
    }
}

extension NSEntityDescription {
    /// Whether `versionHash` is known to equal Apple's for this entity: false when the entity or
    /// an ancestor uses something no Apple oracle has covered (COREDATA-FORMAT.md §6): a derived
    /// attribute, external binary storage, an entity version hash modifier, a relationship
    /// without inverse, or several uniqueness constraints. Stores then decide compatibility by
    /// structure instead.
    package var hasExactVersionHash: Bool {
        var entity: NSEntityDescription? = self
        while let current = entity {
            if current.versionHashModifier != nil || current.uniquenessConstraints.count > 1 { return false }
            for property in current.properties where property.entersEntityVersionHash {
                // A composite's hash is OpenCoreData's own, but stores Core Data wrote with one cannot
                // be read anyway (Docs/Differences.md): it is compared exactly, so that a change of
                // an element, which the tables do not show, migrates the store.
                if property is NSDerivedAttributeDescription { return false }
                if let attribute = property as? NSAttributeDescription, attribute.allowsExternalBinaryDataStorage { return false }
                if let relationship = property as? NSRelationshipDescription, relationship.inverseRelationship == nil { return false }
            }
            entity = current.superentity
        }
        return true
    }
}
