module hookline.dev/bench/ceiling

go 1.21
