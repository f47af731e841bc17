from memlib.cli import main

main()
