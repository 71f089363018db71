module hookline.test/segment/recorder

go 1.20
