#!/usr/bin/env bash
# Generates the member system's client again from the OpenAPI document the server serves, after the document changed:
# swift-openapi-generator writes tests/member-system/Sources/member-system/GeneratedSources, and GeneratedFrom.swift
# there records the SHA-256 of the document it read, which `member-system generated-from` prints and the end-to-end
# test compares with the served document. Commit what it changes.
set -euo pipefail
cd "$(dirname "$0")/../tests/member-system"

target=Sources/member-system
output="$target/GeneratedSources"
# Generated into a new directory that then takes the old one's place, so that no file of an earlier generation stays
# behind and a failed generation leaves the checked-in client as it was.
generated="$(mktemp -d)"
chmod 755 "$generated"
trap 'rm -rf "$generated"' EXIT
swift run swift-openapi-generator generate --config "$target/openapi-generator-config.yaml" \
  --output-directory "$generated" "$target/openapi.yaml"
digest="$(sha256sum "$target/openapi.yaml" | cut -d ' ' -f 1)"
cat >"$generated/GeneratedFrom.swift" <<EOF
// Written by scripts/generate-member-system-client.sh with the client beside it.

/// The SHA-256 of the OpenAPI document this directory's client was generated from, in hexadecimal.
let generatedFromDocumentSHA256 = "$digest"
EOF
rm -rf "$output"
cp -r "$generated" "$output"
echo "Generated the member system's client in tests/member-system/$output from a document with SHA-256 $digest."
