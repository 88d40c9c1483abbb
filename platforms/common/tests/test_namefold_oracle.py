#!/usr/bin/env python3
# test_namefold_oracle.py TEST_NAMEFOLD - namefold's keys against Python's
# unicodedata, an implementation written apart from ours: for every code
# point (as a one-code-point name) and for seeded random names mixing
# letters, marks in every order, Hangul and the characters whose folding
# is longest, the key test_namefold prints must be
#   norm: NFD(s)
#   case: NFD(casefold(NFD(s))) with U+0131 DOTLESS I taken as i (namefold.h's
#         one deliberate widening).
# Exit 0 when all agree, 1 otherwise (the first disagreements shown), 77
# (ctest: skipped, never passed) when Python's Unicode version is not the
# tables' (a different Unicode is a different answer, not a bug of ours).
import random
import subprocess
import sys
import unicodedata as ud


def nfd(s):
    return ud.normalize('NFD', s)


def want(s, mode):
    if mode == 'norm':
        return nfd(s)
    return nfd(nfd(s).casefold().replace('\u0131', 'i'))


def names(seed):
    singles = [chr(cp) for cp in range(1, 0x110000)
               if not 0xD800 <= cp <= 0xDFFF and cp != 10]
    pool = ('aAeEiIkKsS\u00df\u1e9e\u017f\u212a\u212b\u0130\u0131\u01c5\u1fb3'
            '\u0301\u0323\u0345\u0308\u0327\u031b\u0300\uac00\ud55c\u1100\u1161\u11ab'
            '\ufb01\ufb03\u0390\u1f82/.')
    rnd = random.Random(seed)
    mixed = [''.join(rnd.choice(pool) for _ in range(rnd.randint(1, 9)))
             for _ in range(20000)]
    return singles + mixed


def main():
    exe = sys.argv[1]
    version = subprocess.run([exe, '--version'], capture_output=True, text=True,
                             check=True).stdout.strip()
    if version != ud.unidata_version:
        print('1..0 # SKIP the tables are Unicode %s, this Python has %s'
              % (version, ud.unidata_version))
        return 77
    inputs = names(20240501)
    text = ''.join(s + '\n' for s in inputs).encode('utf-8', 'surrogatepass')
    status = 0
    n = 0
    for mode in ('norm', 'case'):
        out = subprocess.run([exe, '--keys', mode], input=text, capture_output=True,
                             check=True).stdout.decode().split('\n')
        bad = []
        for s, got in zip(inputs, out):
            exp = ' '.join('%X' % ord(c) for c in want(s, mode))
            if got != exp:
                bad.append((s, got, exp))
        n += 1
        if len(out) < len(inputs) or bad:
            status = 1
            print('not ok %d - %s: %d of %d keys differ from unicodedata' % (n, mode, len(bad), len(inputs)))
            for s, got, exp in bad[:8]:
                print('#   %r: ours %s, unicodedata %s' % (s, got, exp))
        else:
            print('ok %d - %s: all %d keys agree with unicodedata %s' % (n, mode, len(inputs), version))
    print('1..%d' % n)
    return status


if __name__ == '__main__':
    sys.exit(main())
