import Foundation

// The rest of the names Apple's Swift overlay gives Core Data's error codes: the code
// `externalRecordImport`, a static on `CocoaError` for every code (`CocoaError.migration`), the
// `…Error` spellings Apple deprecated (not marked deprecated here: see Docs/API/CoreDataErrors.md),
// and the properties that read a Core Data error's user info.

extension CocoaError.Code {
    public static var externalRecordImport: Self { .init(rawValue: 134200) }

    public static var managedObjectValidationError: Self { .managedObjectValidation }
    public static var validationMultipleErrorsError: Self { .validationMultipleErrors }
    public static var validationMissingMandatoryPropertyError: Self { .validationMissingMandatoryProperty }
    public static var validationRelationshipLacksMinimumCountError: Self { .validationRelationshipLacksMinimumCount }
    public static var validationRelationshipExceedsMaximumCountError: Self { .validationRelationshipExceedsMaximumCount }
    public static var validationRelationshipDeniedDeleteError: Self { .validationRelationshipDeniedDelete }
    public static var validationNumberTooLargeError: Self { .validationNumberTooLarge }
    public static var validationNumberTooSmallError: Self { .validationNumberTooSmall }
    public static var validationDateTooLateError: Self { .validationDateTooLate }
    public static var validationDateTooSoonError: Self { .validationDateTooSoon }
    public static var validationInvalidDateError: Self { .validationInvalidDate }
    public static var validationStringTooLongError: Self { .validationStringTooLong }
    public static var validationStringTooShortError: Self { .validationStringTooShort }
    public static var validationStringPatternMatchingError: Self { .validationStringPatternMatching }
    public static var managedObjectContextLockingError: Self { .managedObjectContextLocking }
    public static var persistentStoreCoordinatorLockingError: Self { .persistentStoreCoordinatorLocking }
    public static var managedObjectReferentialIntegrityError: Self { .managedObjectReferentialIntegrity }
    public static var managedObjectExternalRelationshipError: Self { .managedObjectExternalRelationship }
    public static var managedObjectMergeError: Self { .managedObjectMerge }
    public static var managedObjectConstraintMergeError: Self { .managedObjectConstraintMerge }
    public static var persistentStoreInvalidTypeError: Self { .persistentStoreInvalidType }
    public static var persistentStoreTypeMismatchError: Self { .persistentStoreTypeMismatch }
    public static var persistentStoreIncompatibleSchemaError: Self { .persistentStoreIncompatibleSchema }
    public static var persistentStoreSaveError: Self { .persistentStoreSave }
    public static var persistentStoreIncompleteSaveError: Self { .persistentStoreIncompleteSave }
    public static var persistentStoreSaveConflictsError: Self { .persistentStoreSaveConflicts }
    public static var coreDataError: Self { .coreData }
    public static var persistentStoreOperationError: Self { .persistentStoreOperation }
    public static var persistentStoreOpenError: Self { .persistentStoreOpen }
    public static var persistentStoreTimeoutError: Self { .persistentStoreTimeout }
    public static var persistentStoreUnsupportedRequestTypeError: Self { .persistentStoreUnsupportedRequestType }
    public static var persistentStoreIncompatibleVersionHashError: Self { .persistentStoreIncompatibleVersionHash }
    public static var migrationError: Self { .migration }
    public static var migrationCancelledError: Self { .migrationCancelled }
    public static var migrationMissingSourceModelError: Self { .migrationMissingSourceModel }
    public static var migrationMissingMappingModelError: Self { .migrationMissingMappingModel }
    public static var migrationManagerSourceStoreError: Self { .migrationManagerSourceStore }
    public static var migrationManagerDestinationStoreError: Self { .migrationManagerDestinationStore }
    public static var entityMigrationPolicyError: Self { .entityMigrationPolicy }
    public static var sqliteError: Self { .sqlite }
    public static var inferredMappingModelError: Self { .inferredMappingModel }
    public static var externalRecordImportError: Self { .externalRecordImport }
}

extension CocoaError {
    public static var validationDateTooLate: Code { .validationDateTooLate }
    public static var validationDateTooSoon: Code { .validationDateTooSoon }
    public static var validationInvalidDate: Code { .validationInvalidDate }
    public static var managedObjectContextLocking: Code { .managedObjectContextLocking }
    public static var persistentStoreCoordinatorLocking: Code { .persistentStoreCoordinatorLocking }
    public static var managedObjectExternalRelationship: Code { .managedObjectExternalRelationship }
    public static var persistentStoreTypeMismatch: Code { .persistentStoreTypeMismatch }
    public static var persistentStoreIncompleteSave: Code { .persistentStoreIncompleteSave }
    public static var persistentStoreSaveConflicts: Code { .persistentStoreSaveConflicts }
    public static var coreData: Code { .coreData }
    public static var persistentStoreOperation: Code { .persistentStoreOperation }
    public static var persistentStoreTimeout: Code { .persistentStoreTimeout }
    public static var persistentStoreUnsupportedRequestType: Code { .persistentStoreUnsupportedRequestType }
    public static var migration: Code { .migration }
    public static var migrationCancelled: Code { .migrationCancelled }
    public static var migrationMissingSourceModel: Code { .migrationMissingSourceModel }
    public static var migrationMissingMappingModel: Code { .migrationMissingMappingModel }
    public static var migrationManagerSourceStore: Code { .migrationManagerSourceStore }
    public static var migrationManagerDestinationStore: Code { .migrationManagerDestinationStore }
    public static var entityMigrationPolicy: Code { .entityMigrationPolicy }
    public static var sqlite: Code { .sqlite }
    public static var inferredMappingModel: Code { .inferredMappingModel }
    public static var externalRecordImport: Code { .externalRecordImport }

    public static var managedObjectValidationError: Code { .managedObjectValidation }
    public static var validationMultipleErrorsError: Code { .validationMultipleErrors }
    public static var validationMissingMandatoryPropertyError: Code { .validationMissingMandatoryProperty }
    public static var validationRelationshipLacksMinimumCountError: Code { .validationRelationshipLacksMinimumCount }
    public static var validationRelationshipExceedsMaximumCountError: Code { .validationRelationshipExceedsMaximumCount }
    public static var validationRelationshipDeniedDeleteError: Code { .validationRelationshipDeniedDelete }
    public static var validationNumberTooLargeError: Code { .validationNumberTooLarge }
    public static var validationNumberTooSmallError: Code { .validationNumberTooSmall }
    public static var validationDateTooLateError: Code { .validationDateTooLate }
    public static var validationDateTooSoonError: Code { .validationDateTooSoon }
    public static var validationInvalidDateError: Code { .validationInvalidDate }
    public static var validationStringTooLongError: Code { .validationStringTooLong }
    public static var validationStringTooShortError: Code { .validationStringTooShort }
    public static var validationStringPatternMatchingError: Code { .validationStringPatternMatching }
    public static var managedObjectContextLockingError: Code { .managedObjectContextLocking }
    public static var persistentStoreCoordinatorLockingError: Code { .persistentStoreCoordinatorLocking }
    public static var managedObjectReferentialIntegrityError: Code { .managedObjectReferentialIntegrity }
    public static var managedObjectExternalRelationshipError: Code { .managedObjectExternalRelationship }
    public static var managedObjectMergeError: Code { .managedObjectMerge }
    public static var managedObjectConstraintMergeError: Code { .managedObjectConstraintMerge }
    public static var persistentStoreInvalidTypeError: Code { .persistentStoreInvalidType }
    public static var persistentStoreTypeMismatchError: Code { .persistentStoreTypeMismatch }
    public static var persistentStoreIncompatibleSchemaError: Code { .persistentStoreIncompatibleSchema }
    public static var persistentStoreSaveError: Code { .persistentStoreSave }
    public static var persistentStoreIncompleteSaveError: Code { .persistentStoreIncompleteSave }
    public static var persistentStoreSaveConflictsError: Code { .persistentStoreSaveConflicts }
    public static var coreDataError: Code { .coreData }
    public static var persistentStoreOperationError: Code { .persistentStoreOperation }
    public static var persistentStoreOpenError: Code { .persistentStoreOpen }
    public static var persistentStoreTimeoutError: Code { .persistentStoreTimeout }
    public static var persistentStoreUnsupportedRequestTypeError: Code { .persistentStoreUnsupportedRequestType }
    public static var persistentStoreIncompatibleVersionHashError: Code { .persistentStoreIncompatibleVersionHash }
    public static var migrationError: Code { .migration }
    public static var migrationCancelledError: Code { .migrationCancelled }
    public static var migrationMissingSourceModelError: Code { .migrationMissingSourceModel }
    public static var migrationMissingMappingModelError: Code { .migrationMissingMappingModel }
    public static var migrationManagerSourceStoreError: Code { .migrationManagerSourceStore }
    public static var migrationManagerDestinationStoreError: Code { .migrationManagerDestinationStore }
    public static var entityMigrationPolicyError: Code { .entityMigrationPolicy }
    public static var sqliteError: Code { .sqlite }
    public static var inferredMappingModelError: Code { .inferredMappingModel }
    public static var externalRecordImportError: Code { .externalRecordImport }

    /// The object that failed validation (`NSValidationObjectErrorKey`).
    public var validationObject: Any? { userInfo[NSValidationObjectErrorKey] }
    /// The key that failed validation (`NSValidationKeyErrorKey`).
    public var validationKey: String? { userInfo[NSValidationKeyErrorKey] as? String }
    /// The predicate that failed (`NSValidationPredicateErrorKey`).
    public var validationPredicate: NSPredicate? { userInfo[NSValidationPredicateErrorKey] as? NSPredicate }
    /// The value that failed validation (`NSValidationValueErrorKey`).
    public var validationValue: Any? { userInfo[NSValidationValueErrorKey] }
    /// The stores the error concerns (`NSAffectedStoresErrorKey`).
    public var affectedStores: [AnyObject]? { userInfo[NSAffectedStoresErrorKey] as? [AnyObject] }
    /// The objects the error concerns (`NSAffectedObjectsErrorKey`).
    public var affectedObjects: [AnyObject]? { userInfo[NSAffectedObjectsErrorKey] as? [AnyObject] }
    /// The conflicts of a failed save (`NSPersistentStoreSaveConflictsErrorKey`).
    public var persistentStoreSaveConflicts: [NSMergeConflict]? { userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] }
}

/// The domain of errors SQLite reports, under `NSSQLiteErrorDomain` in a Core Data error's user
/// info with SQLite's result code.
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"
