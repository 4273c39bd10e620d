import Foundation
import Testing

/// The corpus lookup of `Corpus`: a corpus that was asked for must be there, so that the
/// compatibility suites are never skipped by accident.
@Suite struct CorpusLookupTests {
    /// A folder named by `OCD_CORPUS`, or the corpus under CI (`CI=true`) unless `OCD_CORPUS=none`
    /// says there is none, is a failure when missing, not a skip. (`.ci/run` itself refuses to
    /// start without the corpus; `none` is only its own second, bare-clone run.)
    @Test func aCorpusThatWasAskedForIsThere() {
        let environment = ProcessInfo.processInfo.environment
        let named = environment["OCD_CORPUS"].map { !$0.isEmpty && $0 != "none" } ?? false
        let requiredByCI = environment["CI"] == "true" && environment["OCD_CORPUS"] != "none"
        if named || requiredByCI {
            #expect(Corpus.isAvailable, "the corpus is missing or unreadable: \(Corpus.skipReason)")
        }
    }

    /// `OCD_CORPUS=none` means no corpus, whatever lies beside the checkout.
    @Test func noneMeansNoCorpus() {
        guard ProcessInfo.processInfo.environment["OCD_CORPUS"] == "none" else { return }
        #expect(Corpus.root == nil)
        #expect(!Corpus.isAvailable)
    }
}
