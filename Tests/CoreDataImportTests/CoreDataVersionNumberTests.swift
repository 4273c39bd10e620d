import Foundation
import CoreData
import Testing

/// `NSCoreDataVersionNumber` and the release constants of Apple's `CoreDataDefines.h`, which code
/// written for Apple's SDK compares to choose what the running Core Data can do.
@Suite struct CoreDataVersionNumberTests {
    @Test func theReleaseConstantsAreApples() {
        #expect(NSCoreDataVersionNumber10_4 == 46.0)
        #expect(NSCoreDataVersionNumber10_7_2 == 358.12)
        #expect(NSCoreDataVersionNumber10_11_3 == 641.3)
        #expect(NSCoreDataVersionNumber_iPhoneOS_3_0 == 241.0)
        #expect(NSCoreDataVersionNumber_iPhoneOS_4_2 == 320.15)
        #expect(NSCoreDataVersionNumber_iPhoneOS_9_3 == 641.6)
    }

    @Test func theRunningVersionIsLaterThanEveryRelease() {
        // The usual test for a feature: it takes the branch for today's Core Data.
        let releases = [NSCoreDataVersionNumber10_11_3, NSCoreDataVersionNumber_iPhoneOS_9_3, NSCoreDataVersionNumber_iPhoneOS_9_0]
        #expect(releases.allSatisfy { floor(NSCoreDataVersionNumber) > $0 })
        #expect(NSCoreDataVersionNumber == 1344)
    }
}
