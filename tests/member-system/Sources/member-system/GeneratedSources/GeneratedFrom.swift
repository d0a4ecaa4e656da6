// Written by scripts/generate-member-system-client.sh with the client beside it.

/// The SHA-256 of the OpenAPI document this directory's client was generated from, in hexadecimal.
let generatedFromDocumentSHA256 = "64d1c579122ad7ce6a0d9babe64f12e1d4385d39f3a35e277b62ae5f84fc9281"
