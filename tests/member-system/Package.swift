// swift-tools-version:6.2
import PackageDescription

// A stand-in for an organisation's own case system: it talks to Varsel only through a client that
// swift-openapi-generator made from the OpenAPI document the server serves. The generated code is checked in
// (Sources/member-system/GeneratedSources), so building the member system does not build the generator;
// scripts/generate-member-system-client.sh makes it again, with the generator named here.
let package = Package(
    name: "member-system",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0"),
        // Already in the graph through the runtime; named here because the bearer-token middleware edits its headers.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "member-system",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // The generator's input: `openapi.yaml` is a symbolic link to the server's resource.
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
    ]
)
