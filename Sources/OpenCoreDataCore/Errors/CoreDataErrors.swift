import Foundation

// Core Data's error codes (CoreDataErrors.h), as `CocoaError.Code` values, so that
// `catch CocoaError.validationMissingMandatoryProperty` and `(error as NSError).code == 1570`
// both work as on Apple's platforms.
extension CocoaError.Code {
    public static var managedObjectValidation: Self { .init(rawValue: 1550) }
    public static var managedObjectConstraintValidation: Self { .init(rawValue: 1551) }
    public static var validationMultipleErrors: Self { .init(rawValue: 1560) }
    public static var validationMissingMandatoryProperty: Self { .init(rawValue: 1570) }
    public static var validationRelationshipLacksMinimumCount: Self { .init(rawValue: 1580) }
    public static var validationRelationshipExceedsMaximumCount: Self { .init(rawValue: 1590) }
    public static var validationRelationshipDeniedDelete: Self { .init(rawValue: 1600) }
    public static var validationNumberTooLarge: Self { .init(rawValue: 1610) }
    public static var validationNumberTooSmall: Self { .init(rawValue: 1620) }
    public static var validationDateTooLate: Self { .init(rawValue: 1630) }
    public static var validationDateTooSoon: Self { .init(rawValue: 1640) }
    public static var validationInvalidDate: Self { .init(rawValue: 1650) }
    public static var validationStringTooLong: Self { .init(rawValue: 1660) }
    public static var validationStringTooShort: Self { .init(rawValue: 1670) }
    public static var validationStringPatternMatching: Self { .init(rawValue: 1680) }
    public static var validationInvalidURI: Self { .init(rawValue: 1690) }
    public static var managedObjectContextLocking: Self { .init(rawValue: 132000) }
    public static var persistentStoreCoordinatorLocking: Self { .init(rawValue: 132010) }
    public static var managedObjectReferentialIntegrity: Self { .init(rawValue: 133000) }
    public static var managedObjectExternalRelationship: Self { .init(rawValue: 133010) }
    public static var managedObjectMerge: Self { .init(rawValue: 133020) }
    public static var managedObjectConstraintMerge: Self { .init(rawValue: 133021) }
    public static var persistentStoreInvalidType: Self { .init(rawValue: 134000) }
    public static var persistentStoreTypeMismatch: Self { .init(rawValue: 134010) }
    public static var persistentStoreIncompatibleSchema: Self { .init(rawValue: 134020) }
    public static var persistentStoreSave: Self { .init(rawValue: 134030) }
    public static var persistentStoreIncompleteSave: Self { .init(rawValue: 134040) }
    public static var persistentStoreSaveConflicts: Self { .init(rawValue: 134050) }
    public static var coreData: Self { .init(rawValue: 134060) }
    public static var persistentStoreOperation: Self { .init(rawValue: 134070) }
    public static var persistentStoreOpen: Self { .init(rawValue: 134080) }
    public static var persistentStoreTimeout: Self { .init(rawValue: 134090) }
    public static var persistentStoreUnsupportedRequestType: Self { .init(rawValue: 134091) }
    public static var persistentStoreIncompatibleVersionHash: Self { .init(rawValue: 134100) }
    public static var migration: Self { .init(rawValue: 134110) }
    public static var migrationConstraintViolation: Self { .init(rawValue: 134111) }
    public static var migrationCancelled: Self { .init(rawValue: 134120) }
    public static var migrationMissingSourceModel: Self { .init(rawValue: 134130) }
    public static var migrationMissingMappingModel: Self { .init(rawValue: 134140) }
    public static var migrationManagerSourceStore: Self { .init(rawValue: 134150) }
    public static var migrationManagerDestinationStore: Self { .init(rawValue: 134160) }
    public static var entityMigrationPolicy: Self { .init(rawValue: 134170) }
    public static var inferredMappingModel: Self { .init(rawValue: 134190) }
    public static var managedObjectModelReferenceNotFound: Self { .init(rawValue: 134504) }
    public static var stagedMigrationFrameworkVersionMismatch: Self { .init(rawValue: 134505) }
    public static var stagedMigrationBackwardMigration: Self { .init(rawValue: 134506) }
    public static var sqlite: Self { .init(rawValue: 134180) }
    public static var persistentHistoryTokenExpired: Self { .init(rawValue: 134301) }
}

extension CocoaError {
    public static var managedObjectValidation: Code { .managedObjectValidation }
    public static var managedObjectConstraintValidation: Code { .managedObjectConstraintValidation }
    public static var validationMultipleErrors: Code { .validationMultipleErrors }
    public static var validationMissingMandatoryProperty: Code { .validationMissingMandatoryProperty }
    public static var validationRelationshipLacksMinimumCount: Code { .validationRelationshipLacksMinimumCount }
    public static var validationRelationshipExceedsMaximumCount: Code { .validationRelationshipExceedsMaximumCount }
    public static var validationRelationshipDeniedDelete: Code { .validationRelationshipDeniedDelete }
    public static var validationNumberTooLarge: Code { .validationNumberTooLarge }
    public static var validationNumberTooSmall: Code { .validationNumberTooSmall }
    public static var validationStringTooLong: Code { .validationStringTooLong }
    public static var validationStringTooShort: Code { .validationStringTooShort }
    public static var validationStringPatternMatching: Code { .validationStringPatternMatching }
    public static var managedObjectReferentialIntegrity: Code { .managedObjectReferentialIntegrity }
    public static var managedObjectMerge: Code { .managedObjectMerge }
    public static var managedObjectConstraintMerge: Code { .managedObjectConstraintMerge }
    public static var persistentStoreInvalidType: Code { .persistentStoreInvalidType }
    public static var persistentStoreIncompatibleSchema: Code { .persistentStoreIncompatibleSchema }
    public static var persistentStoreSave: Code { .persistentStoreSave }
    public static var persistentStoreOpen: Code { .persistentStoreOpen }
    public static var persistentStoreIncompatibleVersionHash: Code { .persistentStoreIncompatibleVersionHash }
}

// userInfo keys of Core Data's errors.
public let NSDetailedErrorsKey = "NSDetailedErrors"
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
public let NSValidationValueErrorKey = "NSValidationErrorValue"
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
public let NSPersistentStoreSaveConflictsErrorKey = "NSPersistentStoreSaveConflictsErrorKey"
/// The SQLite error behind a store error (an `SQLiteError` value), when there is one.
public let NSSQLiteErrorKey = "NSSQLiteErrorKey"

/// Builders for Core Data's errors, in one place so that every message names what it is about.
package enum CoreDataError {
    package static func make(_ code: CocoaError.Code, _ message: String, _ userInfo: [String: Any] = [:]) -> CocoaError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = message
        return CocoaError(code, userInfo: info)
    }

    static func validation(_ code: CocoaError.Code, object: NSManagedObject, key: String?, value: Any? = nil,
                           _ message: String) -> CocoaError {
        var info: [String: Any] = [NSValidationObjectErrorKey: object]
        if let key { info[NSValidationKeyErrorKey] = key }
        if let value { info[NSValidationValueErrorKey] = value }
        // Named as the model's localization dictionary names them, as Core Data's messages do.
        let model = object.entity.managedObjectModel
        let entityName = object.entity.name ?? "?"
        let entity = ModelLocalization.name(ofEntity: entityName, in: model)
        let place = key.map { "\(entity).\(ModelLocalization.name(ofProperty: $0, entity: entityName, in: model))" } ?? entity
        return make(code, "Validation failed for \(place) of \(object.objectID.uriRepresentation().absoluteString): \(message)", info)
    }

    /// What `error` says about `object`'s `key` without the place it names: a refusal is kept as
    /// its reason, and reported at the next save by a validation error that names the place.
    static func validationReason(of error: Error, object: NSManagedObject, key: String) -> String {
        let description = (error as NSError).localizedDescription
        let place = validation(.managedObjectValidation, object: object, key: key, "").localizedDescription
        return description.hasPrefix(place) ? String(description.dropFirst(place.count)) : description
    }

    /// One error as it is, several as `NSValidationMultipleErrorsError` with the list.
    static func combine(_ errors: [Error]) -> Error? {
        if errors.count <= 1 { return errors.first }
        let summary = errors.prefix(5).map { ($0 as NSError).localizedDescription }.joined(separator: "; ")
        return make(.validationMultipleErrors, "Multiple validation errors occurred (\(errors.count)): \(summary)",
                    [NSDetailedErrorsKey: errors])
    }

    /// The errors `error` stands for: the list of a 1560 error, or the error itself.
    static func individualErrors(in error: Error) -> [Error] {
        let nsError = error as NSError
        guard nsError.domain == NSCocoaErrorDomain, nsError.code == CocoaError.Code.validationMultipleErrors.rawValue,
              let details = nsError.userInfo[NSDetailedErrorsKey] as? [Error], !details.isEmpty else { return [error] }
        return details
    }

    package static func store(_ code: CocoaError.Code, _ message: String, url: URL? = nil, underlying: Error? = nil) -> CocoaError {
        var info: [String: Any] = [:]
        if let url { info[NSURLErrorKey] = url; info[NSFilePathErrorKey] = url.path }
        if let underlying {
            info[NSUnderlyingErrorKey] = underlying as NSError
            info[NSSQLiteErrorKey] = underlying
        }
        var text = message
        if let underlying { text += " (\(underlying))" }
        return make(code, text, info)
    }
}
