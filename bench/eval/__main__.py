from bench.eval.run import main

raise SystemExit(main())
