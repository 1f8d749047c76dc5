from foxgeese.main import main

main()
