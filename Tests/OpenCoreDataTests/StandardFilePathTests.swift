import Foundation
import Testing
@testable import OpenCoreDataCore

/// `StandardFilePath`: the path `standardizedFileURL` gives, taken as it is when standardizing
/// would change nothing — the folders of mapping models and external data are keyed by it.
@Suite struct StandardFilePathTests {
    @Test(arguments: ["/a/b/Store.sqlite", "/a/./b/Store.sqlite", "/a/x/../b/Store.sqlite", "/a//b/Store.sqlite",
                      "/a/b/", "/", "/private/tmp/Store.sqlite", "/a/b/..", "/a/b/.hidden", "/a/b/...", "/é/ü Store.sqlite"])
    func givesWhatStandardizingGives(path: String) {
        let url = URL(fileURLWithPath: path)
        #expect(StandardFilePath.of(url) == url.standardizedFileURL.path)
    }

    @Test func onlyPlainAbsolutePathsAreStandardAsTheyAre() {
        #expect(StandardFilePath.isStandard("/a/b/Store.sqlite"))
        #expect(StandardFilePath.isStandard("/a/b/.hidden"))
        #expect(!StandardFilePath.isStandard("/a/./b"))
        #expect(!StandardFilePath.isStandard("/a/../b"))
        #expect(!StandardFilePath.isStandard("/a//b"))
        #expect(!StandardFilePath.isStandard("/a/b/"))
        #expect(!StandardFilePath.isStandard("a/b"))
        #expect(!StandardFilePath.isStandard("/private/var/x"))
    }
}
