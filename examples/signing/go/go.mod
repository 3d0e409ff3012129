module example.com/pss-signing

go 1.19
