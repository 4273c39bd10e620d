/// Runs `body` and returns its result: on Apple's platforms this drains the Objective-C objects
/// autoreleased inside it; Swift on Linux has no autorelease pools, and Foundation there no
/// `autoreleasepool`, so this is the function Core Data code calls around a loop of batches,
/// which then compiles and runs unchanged.
///
/// ```swift
/// for batch in batches {
///     try autoreleasepool { try importBatch(batch, into: context) }
/// }
/// ```
@inlinable
public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}
