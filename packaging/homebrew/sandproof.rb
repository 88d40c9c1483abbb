# packaging/homebrew/sandproof.rb - the Homebrew formula of sandproof.
# A template: the project publishes no release tarball yet, so the two
# placeholders below are filled by ci/homebrew.sh, which packs this
# checkout (git archive) as sandproof-<version>.tar.gz, puts the formula
# in a local tap and installs from it (the macOS CI leg runs it).  For a
# release, fill them with the release tarball's URL and SHA-256.
class Sandproof < Formula
  desc "Conformance suite for process sandboxes, with a reference runner"
  url "@TARBALL_URL@"
  sha256 "@TARBALL_SHA256@"

  depends_on "cmake" => :build
  depends_on "pkgconf" => :build
  depends_on "cjson"
  depends_on "lua"
  depends_on "sqlite"

  def install
    # -Werror is for the project's own CI; a package builds whatever new
    # warning a newer compiler finds
    system "cmake", "-S", ".", "-B", "build", "-DSANDPROOF_WERROR=OFF", *std_cmake_args
    system "cmake", "--build", "build"
    system "cmake", "--install", "build"
  end

  test do
    assert_match "sandproof #{version}", shell_output("#{bin}/sandproof --version")
    assert_match "sandproof-ref #{version}", shell_output("#{bin}/sandproof-ref --version")
    # the installed copy finds its Lua, adapters and scenarios in its keg
    env = shell_output("#{bin}/sandproof env")
    assert_match(/"layout":\s*"installed"/, env)
    assert_match(/"os":\s*"macos"/, env)
    assert_operator shell_output("#{bin}/sandproof list").lines.count, :>, 100
    assert_path_exists libexec/"sandproof/sandproof-probe"
    assert_path_exists man1/"sandproof.1"
  end
end
