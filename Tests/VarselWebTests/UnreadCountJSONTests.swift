import Foundation
import Testing
import VarselCore

@testable import VarselLive
@testable import VarselWeb

@Suite("Unread-count frames")
struct UnreadCountJSONTests {
    @Test("the shared unread-count JSON is what encoding it afresh gives, per language, above the cached range too")
    func sharedJSONMatchesFreshEncoding() throws {
        let shared = UnreadCountJSON()
        for count in [0, 1, 3, 1, UnreadCountJSON.largestCached + 5] {
            for language in [Language.english, .norwegianBokmal] {
                let describer = Describer(language: language)
                let fresh = try JSONCoding.encoder.encode(UnreadCountResource(count: count, describer: describer))
                #expect(try shared.json(count: count, describer: describer) == fresh)
            }
        }
    }
}
