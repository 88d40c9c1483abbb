#!/usr/bin/env python3
"""check_junit.py XSD XML TESTS FAILURES ERRORS SKIPPED

Parses XML with xml.etree, validates it against XSD and checks the counts.
The standard library has no XSD validator, so this reads the subset of XSD
that junit.xsd uses (global elements with element refs in one sequence,
attributes with use and a type, simple types restricting xs:decimal by
minInclusive or xs:string by pattern) and refuses any construct outside it
rather than ignore it.  Exit 0 valid and the counts match, 1 otherwise."""
import re
import sys
import xml.etree.ElementTree as ET

XS = "{http://www.w3.org/2001/XMLSchema}"


class Invalid(Exception):
    pass


def load_xsd(path):
    root = ET.parse(path).getroot()
    elements, types = {}, {}
    for node in root:
        if node.tag == XS + "element":
            elements[node.get("name")] = node
        elif node.tag == XS + "simpleType":
            types[node.get("name")] = node
        elif not isinstance(node.tag, str):
            continue
        else:
            raise Invalid("unsupported XSD construct %s" % node.tag)
    return elements, types


def check_value(value, typ, types, where):
    if typ == "xs:string":
        return
    if typ == "xs:nonNegativeInteger":
        if not re.fullmatch(r"[0-9]+", value):
            raise Invalid("%s: %r is not a non-negative integer" % (where, value))
        return
    if typ == "xs:decimal":
        if not re.fullmatch(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", value):
            raise Invalid("%s: %r is not a decimal" % (where, value))
        return
    st = types.get(typ)
    if st is None:
        raise Invalid("unsupported type %s" % typ)
    kids = [k for k in st if isinstance(k.tag, str)]
    if len(kids) != 1 or kids[0].tag != XS + "restriction":
        raise Invalid("unsupported simpleType %s" % typ)
    res = kids[0]
    check_value(value, res.get("base"), types, where)
    for facet in res:
        if facet.tag == XS + "pattern":
            if not re.fullmatch(facet.get("value"), value):
                raise Invalid("%s: %r does not match %s" % (where, value, facet.get("value")))
        elif facet.tag == XS + "minInclusive":
            if float(value) < float(facet.get("value")):
                raise Invalid("%s: %r below %s" % (where, value, facet.get("value")))
        elif isinstance(facet.tag, str):
            raise Invalid("unsupported facet %s" % facet.tag)


def validate(node, elements, types, path=""):
    where = path + "/" + node.tag
    decl = elements.get(node.tag)
    if decl is None:
        raise Invalid("%s: element not in the schema" % where)
    if decl.get("type"):                       # simple content only
        if len(node):
            raise Invalid("%s: no child elements allowed" % where)
        if node.attrib:
            raise Invalid("%s: no attributes allowed" % where)
        check_value(node.text or "", decl.get("type"), types, where)
        return
    ct = [k for k in decl if isinstance(k.tag, str)]
    if len(ct) != 1 or ct[0].tag != XS + "complexType":
        raise Invalid("unsupported declaration of %s" % node.tag)
    ct = ct[0]
    mixed = ct.get("mixed") == "true"
    seq, attrs = None, {}
    for part in ct:
        if part.tag == XS + "sequence":
            seq = part
        elif part.tag == XS + "attribute":
            attrs[part.get("name")] = part
        elif isinstance(part.tag, str):
            raise Invalid("unsupported %s in %s" % (part.tag, node.tag))
    for name, value in node.attrib.items():
        if name not in attrs:
            raise Invalid("%s: attribute %s not allowed" % (where, name))
        check_value(value, attrs[name].get("type"), types, where + "@" + name)
    for name, a in attrs.items():
        if a.get("use") == "required" and name not in node.attrib:
            raise Invalid("%s: attribute %s required" % (where, name))
    texts = [node.text] + [k.tail for k in node]
    if not mixed and any(t and t.strip() for t in texts):
        raise Invalid("%s: text not allowed" % where)
    kids = list(node)
    i = 0
    for particle in (list(seq) if seq is not None else []):
        if particle.tag != XS + "element" or not particle.get("ref"):
            raise Invalid("unsupported particle in %s" % node.tag)
        ref = particle.get("ref")
        lo = int(particle.get("minOccurs", "1"))
        hi = particle.get("maxOccurs", "1")
        hi = float("inf") if hi == "unbounded" else int(hi)
        n = 0
        while i < len(kids) and kids[i].tag == ref and n < hi:
            validate(kids[i], elements, types, where)
            i += 1
            n += 1
        if n < lo:
            raise Invalid("%s: needs at least %d <%s>" % (where, lo, ref))
    if i < len(kids):
        raise Invalid("%s: unexpected <%s>" % (where, kids[i].tag))


def main():
    xsd, xml, tests, failures, errors, skipped = sys.argv[1:7]
    elements, types = load_xsd(xsd)
    root = ET.parse(xml).getroot()
    if root.tag != "testsuites":
        raise Invalid("root is %s" % root.tag)
    validate(root, elements, types)
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        seen = {"tests": len(cases),
                "failures": sum(len(c.findall("failure")) for c in cases),
                "errors": sum(len(c.findall("error")) for c in cases),
                "skipped": sum(len(c.findall("skipped")) for c in cases)}
        for k, v in seen.items():
            if int(suite.get(k, "0")) != v:
                raise Invalid("testsuite %s: %s=%s but %d found" % (suite.get("name"), k, suite.get(k), v))
            total[k] += v
    for k in ("tests", "failures", "errors"):
        if int(root.get(k, "0")) != total[k]:
            raise Invalid("testsuites: %s=%s but %d found" % (k, root.get(k), total[k]))
    want = {"tests": int(tests), "failures": int(failures), "errors": int(errors), "skipped": int(skipped)}
    if total != want:
        raise Invalid("counts %s, expected %s" % (total, want))
    print("valid: %s" % total)


if __name__ == "__main__":
    try:
        main()
    except (Invalid, ET.ParseError, ValueError) as e:
        print("invalid: %s" % e)
        sys.exit(1)
