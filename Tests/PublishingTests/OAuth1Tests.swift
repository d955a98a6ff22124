import FlyingFox
import Foundation
import TestSupport
import Testing

@testable import Publishing

/// The vectors file: `fixtures/oauth1-vectors.json` (a copy of `../shared/data/oauth1-vectors.json`).
struct OAuthVector: Decodable {
    var id: String
    var method: String
    var baseUri: String
    var params: [[String]]
    var consumerSecret: String
    var tokenSecret: String
    var expectedParamString: String?
    var expectedBaseString: String?
    var expectedSignature: String
}

struct OAuthVectorFile: Decodable {
    var vectors: [OAuthVector]
}

func loadVectors() throws -> [OAuthVector] {
    let data = try Data(contentsOf: SharedData.packageRoot.appendingPathComponent("fixtures/oauth1-vectors.json"))
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(OAuthVectorFile.self, from: data).vectors
}

@Suite struct OAuth1Tests {
    @Test func allSevenVectorsReproduce() throws {
        let vectors = try loadVectors()
        #expect(vectors.count == 7)
        for v in vectors {
            let params = v.params.map { ($0[0], $0.count > 1 ? $0[1] : "") }
            if let expected = v.expectedParamString {
                #expect(OAuth1.parameterString(params) == expected, "\(v.id)")
            }
            let base = OAuth1.signatureBaseString(method: v.method, baseURI: v.baseUri, parameters: params)
            if let expected = v.expectedBaseString { #expect(base == expected, "\(v.id)") }
            #expect(
                OAuth1.signature(baseString: base, consumerSecret: v.consumerSecret, tokenSecret: v.tokenSecret)
                    == v.expectedSignature, "\(v.id)")
        }
    }

    @Test func headerForTheTwitterExampleMatchesTheDocumentedHeader() throws {
        // Same inputs as the docs' example; the query and the form body are signed, the header lists only oauth_*.
        let url = URL(string: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true")!
        let header = OAuth1.authorizationHeader(
            method: "POST", url: url,
            credentials: OAuth1Credentials(
                consumerKey: "xvz1evFS4wEEPTGEFPHBog",
                consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
                token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
                tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"),
            nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", timestamp: 1_318_622_958,
            formParameters: [("status", "Hello Ladies + Gentlemen, a signed OAuth request!")])
        #expect(
            header
                == #"OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", oauth_version="1.0""#
        )
        #expect(OAuth1.parseAuthorizationHeader(header)?["oauth_signature"] == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
    }

    @Test func percentEncodingFollowsRFC5849() {
        #expect(OAuth1.percentEncode("Ladies + Gentlemen") == "Ladies%20%2B%20Gentlemen")
        #expect(OAuth1.percentEncode("-._~AZaz09") == "-._~AZaz09")
        #expect(OAuth1.percentEncode("歩") == "%E6%AD%A9")
        #expect(
            OAuth1.baseURI(of: URL(string: "HTTP://Example.COM:80/r%20v/X?id=123")!) == "http://example.com/r%20v/X")
        #expect(
            OAuth1.baseURI(of: URL(string: "https://www.example.net:8080/?q=1")!) == "https://www.example.net:8080/")
    }
}
