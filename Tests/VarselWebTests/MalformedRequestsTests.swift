import Foundation
import NIOHTTP1
import Testing

@testable import VarselWeb

/// The answer to a request that is not HTTP/1.1, as the connection writes it.
@Suite("Malformed requests")
struct MalformedRequestsTests {
    @Test("the Date header is an HTTP date in English and GMT, whatever the machine's language and zone")
    func httpDate() {
        #expect(Date(timeIntervalSince1970: 1_795_898_003).formatted(MalformedRequests.httpDate) == "Sat, 28 Nov 2026 20:33:23 GMT")
        #expect(Date(timeIntervalSince1970: 0).formatted(MalformedRequests.httpDate) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test("each answer is a problem+json with a body of the length it says, nosniff, no-store, Date and Server")
    func answerFraming() throws {
        for error in [HTTPParserError.headerOverflow, .invalidContentLength, .invalidConstant, .unknown] {
            let answer = MalformedRequests.answer(error)
            let problem = try JSONDecoder().decode(ProblemBody.self, from: Data(buffer: answer.body))
            #expect(answer.head.status.code == (error == .headerOverflow ? 431 : 400))
            #expect(problem.status == Int(answer.head.status.code) && problem.detail.hasPrefix("The request"))
            let fields = answer.head.headerFields
            #expect(fields[.contentType] == "application/problem+json" && fields[.server] == "Varsel" && fields[.date] != nil)
            #expect(fields[.cacheControl] == "no-store" && fields[.contentTypeOptions] == "nosniff")
        }
    }
}
