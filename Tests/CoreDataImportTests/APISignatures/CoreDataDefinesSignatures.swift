import Foundation
import CoreData

extension APISignatures {
    static func coreDataDefines(_ check: inout Checks) {
        check("NSCoreDataVersionNumber") { let _: Double = NSCoreDataVersionNumber }
        check("NSCoreDataVersionNumber10_4") { let _: Double = NSCoreDataVersionNumber10_4 }
        check("NSCoreDataVersionNumber10_4_3") { let _: Double = NSCoreDataVersionNumber10_4_3 }
        check("NSCoreDataVersionNumber10_5") { let _: Double = NSCoreDataVersionNumber10_5 }
        check("NSCoreDataVersionNumber10_5_3") { let _: Double = NSCoreDataVersionNumber10_5_3 }
        check("NSCoreDataVersionNumber10_6") { let _: Double = NSCoreDataVersionNumber10_6 }
        check("NSCoreDataVersionNumber10_6_2") { let _: Double = NSCoreDataVersionNumber10_6_2 }
        check("NSCoreDataVersionNumber10_6_3") { let _: Double = NSCoreDataVersionNumber10_6_3 }
        check("NSCoreDataVersionNumber10_7") { let _: Double = NSCoreDataVersionNumber10_7 }
        check("NSCoreDataVersionNumber10_7_2") { let _: Double = NSCoreDataVersionNumber10_7_2 }
        check("NSCoreDataVersionNumber10_7_3") { let _: Double = NSCoreDataVersionNumber10_7_3 }
        check("NSCoreDataVersionNumber10_7_4") { let _: Double = NSCoreDataVersionNumber10_7_4 }
        check("NSCoreDataVersionNumber10_8") { let _: Double = NSCoreDataVersionNumber10_8 }
        check("NSCoreDataVersionNumber10_8_2") { let _: Double = NSCoreDataVersionNumber10_8_2 }
        check("NSCoreDataVersionNumber10_9") { let _: Double = NSCoreDataVersionNumber10_9 }
        check("NSCoreDataVersionNumber10_9_2") { let _: Double = NSCoreDataVersionNumber10_9_2 }
        check("NSCoreDataVersionNumber10_9_3") { let _: Double = NSCoreDataVersionNumber10_9_3 }
        check("NSCoreDataVersionNumber10_10") { let _: Double = NSCoreDataVersionNumber10_10 }
        check("NSCoreDataVersionNumber10_10_2") { let _: Double = NSCoreDataVersionNumber10_10_2 }
        check("NSCoreDataVersionNumber10_10_3") { let _: Double = NSCoreDataVersionNumber10_10_3 }
        check("NSCoreDataVersionNumber10_11") { let _: Double = NSCoreDataVersionNumber10_11 }
        check("NSCoreDataVersionNumber10_11_3") { let _: Double = NSCoreDataVersionNumber10_11_3 }
        check("NSCoreDataVersionNumber_iPhoneOS_3_0") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_3_0 }
        check("NSCoreDataVersionNumber_iPhoneOS_3_1") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_3_1 }
        check("NSCoreDataVersionNumber_iPhoneOS_3_2") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_3_2 }
        check("NSCoreDataVersionNumber_iPhoneOS_4_0") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_4_0 }
        check("NSCoreDataVersionNumber_iPhoneOS_4_1") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_4_1 }
        check("NSCoreDataVersionNumber_iPhoneOS_4_2") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_4_2 }
        check("NSCoreDataVersionNumber_iPhoneOS_4_3") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_4_3 }
        check("NSCoreDataVersionNumber_iPhoneOS_5_0") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_5_0 }
        check("NSCoreDataVersionNumber_iPhoneOS_5_1") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_5_1 }
        check("NSCoreDataVersionNumber_iPhoneOS_6_0") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_6_0 }
        check("NSCoreDataVersionNumber_iPhoneOS_6_1") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_6_1 }
        check("NSCoreDataVersionNumber_iPhoneOS_7_0") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_7_0 }
        check("NSCoreDataVersionNumber_iPhoneOS_7_1") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_7_1 }
        check("NSCoreDataVersionNumber_iPhoneOS_8_0") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_8_0 }
        check("NSCoreDataVersionNumber_iPhoneOS_8_3") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_8_3 }
        check("NSCoreDataVersionNumber_iPhoneOS_9_0") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_9_0 }
        check("NSCoreDataVersionNumber_iPhoneOS_9_2") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_9_2 }
        check("NSCoreDataVersionNumber_iPhoneOS_9_3") { let _: Double = NSCoreDataVersionNumber_iPhoneOS_9_3 }
    }
}
