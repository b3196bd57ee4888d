#!/usr/bin/env python3
"""Prints the public API of the library products, one declaration per line, from the symbol
graphs that `swift package dump-symbol-graph` writes (run by docs/public-api.sh):

    # Compositor: 54 top-level types, 62 with nested ones, 507 declarations
    Ad  struct
    Ad.end  property
    ...

Modules: what `import Compositor` brings (Compositor and the modules it re-exports) and the two
other library products. Extensions of other modules' types are listed under the type's module.
"""
import json, sys, glob, os

TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias", "swift.actor"}
# What `import Compositor` brings: the module and the ones it re-exports; then the other products.
PRODUCTS = {
    "Compositor": ["Compositor", "CompositorCore", "CompositorHLS", "CompositorMP4", "CompositorAds"],
    "CompositorAVFoundation": ["CompositorAVFoundation"],
    "CompositorTesting": ["CompositorTesting"],
}

def main(folder):
    symbols = set()
    for path in glob.glob(os.path.join(folder, "*.symbols.json")):
        graph = json.load(open(path))
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            module = graph["module"]["name"]
            name = ".".join(symbol["pathComponents"])
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            symbols.add((module, name, kind))
    out = []
    for product, modules in PRODUCTS.items():
        mine = sorted(((m, n, k) for (m, n, k) in symbols if m in modules), key=lambda x: (x[1], x[2]))
        types = [x for x in mine if "swift." + x[2] in TYPE_KINDS]
        top = [x for x in types if "." not in x[1]]
        out.append(f"# {product}: {len(top)} top-level types, {len(types)} with nested ones, {len(mine)} declarations")
        for module, name, kind in mine:
            out.append(f"{name}  {kind}")
        out.append("")
    sys.stdout.write("\n".join(out))

if __name__ == "__main__":
    main(sys.argv[1])
