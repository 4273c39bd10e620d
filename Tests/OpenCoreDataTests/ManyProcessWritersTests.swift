import Foundation
import Testing
import OpenCoreData

/// Many writers across processes (issue 14 item 6): `ocd-crashtest writers` starts writer
/// processes that save changes to the same objects of one store at once under one merge policy,
/// and checks the store: no save fails (no `SQLITE_BUSY`, no conflict a policy should settle), no
/// insert is lost, the error policy with retries loses no update, and the property-by-property
/// policies keep each writer's own changes (§8). `swift run ocd-crashtest writers --writers 8
/// --rounds 200 --policy objectTrump` runs more.
@Suite struct ManyProcessWritersTests {
    @Test(arguments: ["error", "objectTrump", "storeTrump", "overwrite", "rollback"])
    func writersInSeveralProcessesMeetOnlyWhatTheirPolicyDecides(policy: String) throws {
        let result = try OCD.run(["writers", "--writers", "4", "--rounds", "30", "--policy", policy, "--seed", "5"],
                                 executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("4 writers × 30 rounds under \(policy):"), "\(result.output)")
        #expect(result.output.hasSuffix(", 0 failures\n"), "\(result.output)")
    }
}
