# formula_stub.rb FORMULA - loads a Homebrew formula with a stand-in for
# Homebrew's Formula DSL (this machine has no Homebrew) and prints what it
# declares and what its install runs, one line each:
#   url URL / sha256 SUM / dep NAME [build] / test / system ARG...
# (packaging/tests/test_packaging.sh judges the lines).
class Formula
  class << self
    attr_reader :lines

    def out(line)
      (@lines ||= []) << line
    end

    def desc(text) = out("desc #{text}")
    def homepage(url) = out("homepage #{url}")
    def url(url, **_) = out("url #{url}")
    def sha256(sum) = out("sha256 #{sum}")
    def license(name) = out("license #{name}")

    def depends_on(spec)
      name, kind = spec.is_a?(Hash) ? spec.first : [spec, nil]
      out("dep #{name}#{kind ? " #{kind}" : ""}")
    end

    def test(&block)
      out("test")
      @test = block
    end
  end

  def std_cmake_args = ["-DCMAKE_INSTALL_PREFIX=/prefix", "-DCMAKE_BUILD_TYPE=Release"]
  def system(*args) = self.class.out("system #{args.join(" ")}")
end

load ARGV.fetch(0)
klass = ObjectSpace.each_object(Class).find { |c| c < Formula }
abort "formula_stub.rb: no Formula subclass in #{ARGV[0]}" unless klass
klass.new.install
puts klass.lines
