// The ICU data the release links: the toolchain's, with only the languages Varsel speaks (English and Norwegian).
//
// A static Linux build takes ICU and its data from the toolchain's `lib_FoundationICU.a`, which defines the data as
// one symbol, `icudt<version>_dat`, in an object of its own. Defined here under the same name, the data is taken from
// this file and the linker never pulls in the toolchain's (34 MB, every language ICU knows). A dynamic build keeps
// the toolchain's, which its shared library resolves within itself; this copy is then unused.
// `scripts/trim_icu_data.py` writes `icudt76l.dat`; run it when the toolchain's ICU changes, and rename the symbol
// and the file here and in Package.swift to its version. `scripts/package.sh` checks that the release took this data.
#if defined(__linux__) && !defined(__ANDROID__)
#pragma clang diagnostic ignored "-Wc23-extensions"

__attribute__((aligned(16))) const unsigned char icudt76_dat[] = {
#embed "icudt76l.dat"
};
#endif
