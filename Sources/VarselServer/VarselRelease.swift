/// The release this build is: what `varsel --version` prints and the package is named after.
public enum VarselRelease {
    /// The version, `MAJOR.MINOR.PATCH`.
    public static let version = "1.0.0"
}
