// Core Data's error codes under the names of CoreDataErrors.h, for code that compares codes:
// `if (error as NSError).code == NSValidationMultipleErrorsError { … }`. The same codes are
// `CocoaError.Code` values too (see CoreDataErrors.swift), for `catch` patterns.

/// A generic validation failure (a value of the wrong type, an unknown key, a rule of your own).
public let NSManagedObjectValidationError = 1550
/// A uniqueness constraint broken among the objects being saved.
public let NSManagedObjectConstraintValidationError = 1551
/// Several validation failures; `NSDetailedErrorsKey` lists them.
public let NSValidationMultipleErrorsError = 1560
/// A required attribute or to-one relationship without a value.
public let NSValidationMissingMandatoryPropertyError = 1570
/// A to-many relationship with fewer objects than its `minCount`.
public let NSValidationRelationshipLacksMinimumCountError = 1580
/// A to-many relationship with more objects than its `maxCount`.
public let NSValidationRelationshipExceedsMaximumCountError = 1590
/// A deletion refused by a relationship with the deny rule.
public let NSValidationRelationshipDeniedDeleteError = 1600
/// A number above its attribute's maximum.
public let NSValidationNumberTooLargeError = 1610
/// A number below its attribute's minimum.
public let NSValidationNumberTooSmallError = 1620
/// A date after its attribute's maximum.
public let NSValidationDateTooLateError = 1630
/// A date before its attribute's minimum.
public let NSValidationDateTooSoonError = 1640
/// A date that is not valid.
public let NSValidationInvalidDateError = 1650
/// A string (or data) longer than its attribute's maximum.
public let NSValidationStringTooLongError = 1660
/// A string (or data) shorter than its attribute's minimum.
public let NSValidationStringTooShortError = 1670
/// A string that does not match its attribute's regular expression.
public let NSValidationStringPatternMatchingError = 1680
/// A URI that is not valid.
public let NSValidationInvalidURIError = 1690

/// A context that could not be locked.
public let NSManagedObjectContextLockingError = 132000
/// A coordinator that could not be locked.
public let NSPersistentStoreCoordinatorLockingError = 132010

/// An object that does not exist (`existingObject(with:)`, a fault whose row is gone).
public let NSManagedObjectReferentialIntegrityError = 133000
/// A relationship to an object in another store.
public let NSManagedObjectExternalRelationshipError = 133010
/// A save that met changes made elsewhere since the objects were read (optimistic locking).
public let NSManagedObjectMergeError = 133020
/// A save that would break a uniqueness constraint against stored rows.
public let NSManagedObjectConstraintMergeError = 133021

/// An unknown store type, or a store the request cannot use.
public let NSPersistentStoreInvalidTypeError = 134000
/// A file that is not a store of the type asked for.
public let NSPersistentStoreTypeMismatchError = 134010
/// A store whose schema does not match the model.
public let NSPersistentStoreIncompatibleSchemaError = 134020
/// A store that could not be written.
public let NSPersistentStoreSaveError = 134030
/// A save that reached some stores but not others.
public let NSPersistentStoreIncompleteSaveError = 134040
/// A save with unresolved conflicts.
public let NSPersistentStoreSaveConflictsError = 134050
/// A failure with no more specific code.
public let NSCoreDataError = 134060
/// A store operation that failed.
public let NSPersistentStoreOperationError = 134070
/// A store that could not be opened.
public let NSPersistentStoreOpenError = 134080
/// A store that did not answer in time.
public let NSPersistentStoreTimeoutError = 134090
/// A request the store cannot run (an invalid fetch request, an unsupported predicate).
public let NSPersistentStoreUnsupportedRequestTypeError = 134091
/// A store written for another version of the model.
public let NSPersistentStoreIncompatibleVersionHashError = 134100
/// A history request whose token points into history that was deleted, or names none of the
/// stores asked.
public let NSPersistentHistoryTokenExpiredError = 134301

/// A migration that failed.
public let NSMigrationError = 134110
/// A migration that would break a uniqueness constraint.
public let NSMigrationConstraintViolationError = 134111
/// A migration that was cancelled.
public let NSMigrationCancelledError = 134120
/// A migration without the model the store was written with.
public let NSMigrationMissingSourceModelError = 134130
/// A migration without a mapping model.
public let NSMigrationMissingMappingModelError = 134140
/// A migration whose source store failed.
public let NSMigrationManagerSourceStoreError = 134150
/// A migration whose destination store failed.
public let NSMigrationManagerDestinationStoreError = 134160
/// A custom entity migration policy that failed.
public let NSEntityMigrationPolicyError = 134170
/// A SQLite failure; the underlying error carries SQLite's code and message.
public let NSSQLiteError = 134180
/// A mapping model that could not be inferred.
public let NSInferredMappingModelError = 134190
/// An external record that could not be imported.
public let NSExternalRecordImportError = 134200

/// A model named by an `NSManagedObjectModelReference` (a stage of a staged migration) that
/// cannot be found or loaded, or whose version checksum is not the one given.
public let NSManagedObjectModelReferenceNotFoundError = 134504
/// A store whose metadata does not allow a staged migration.
public let NSStagedMigrationFrameworkVersionMismatchError = 134505
/// A staged migration that would take a store back to an earlier version of its model.
public let NSStagedMigrationBackwardMigrationError = 134506
