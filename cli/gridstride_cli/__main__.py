import sys

from gridstride_cli.main import main

sys.exit(main())
