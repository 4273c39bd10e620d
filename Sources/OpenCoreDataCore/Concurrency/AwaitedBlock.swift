/// The result of `block`, run by `schedule` (a `perform` that runs what it is handed once, on
/// its queue), awaited: the async form of the block-taking `perform` of contexts and
/// coordinators. The block's error comes back as its own type.
///
/// ```swift
/// let count = try await awaitedResult(of: { try context.count(for: request) }, scheduledBy: { context.perform($0) })
/// ```
func awaitedResult<T: Sendable, E: Error>(of block: @escaping @Sendable () throws(E) -> T,
                                          scheduledBy schedule: (@escaping @Sendable () -> Void) -> Void) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
        schedule {
            do throws(E) {
                continuation.resume(returning: .success(try block()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
    }
    return try result.get()
}
