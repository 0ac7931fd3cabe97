"""`python -m q7.prepare [--native] [--quiet]`: builds q7's device SDK ahead
of the first custom_op.load (q7._prepare says more). Not imported by q7
itself, so that running it as a module runs it once."""

import sys

from q7._prepare import main

if __name__ == "__main__":
    sys.exit(main())
