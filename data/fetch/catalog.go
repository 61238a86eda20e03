package fetch

// The data sets the project reads, with their public sources. Every
// checksum below was published by a third party or computed from a public
// copy, as each Source says; where none could be established the field is
// empty and Note says so. No entry was filled in from memory.

const (
	// graal is the public repository of Ganin et al.'s domain-adversarial
	// networks, whose data/ folder holds the Amazon svmlight files, at the
	// commit whose files the SHA-256 sums below were computed from.
	graal = "GRAAL-Research/domain_adversarial_neural_network/74eec5e0ae06bd6614bce048abba492c16a633e3/data/"
	// synthRev is the commit of the domainadaptation/datasets repository
	// whose Git LFS pointers give the SynthDigits files' SHA-256 and size.
	synthRev = "91ff02225a73db330883843bc41ee3aca59a19d9"
)

func amazonFiles() []File {
	sums := []struct{ name, sum string }{
		{"books_train.svmlight", "317f9a2ec34b81de770b63a84d8c5cc2dc16bd0be6e079d2ff5b5bad5213ea19"},
		{"books_test.svmlight", "fe4605c7dcf0e0a9410fd2a32f247caaf9abb352cc6e4c3e0f400853163ad9c4"},
		{"dvd_train.svmlight", "95f602aa08bf6b55758f7b0b18df3882fe30acb11987ee60b6b4bb3c44cba733"},
		{"dvd_test.svmlight", "4fe1b1a15010f78d8d0c49fe362d35fd4677463a45f1ac02a9f410ae1e638060"},
		{"electronics_train.svmlight", "7d0061f03ff3827e4f8036b051b5e5828fddc0cd115aa5b212cd28d624dc14e4"},
		{"electronics_test.svmlight", "641783bc941839c3a111d3488a1b7e3bd820a61ec14a129e7429b47703aa961d"},
		{"kitchen_train.svmlight", "a70b5ebfe1413e0e16280360905f5c3b64389c435cd20c0165dc9d7f293b31b5"},
		{"kitchen_test.svmlight", "e1502b97a824eb12314be4447394fa736fecb781c0724e6529cd6733ac7ff6d8"},
	}
	sizes := map[string]int64{
		"books_train.svmlight": 1134070, "books_test.svmlight": 2426071,
		"dvd_train.svmlight": 1133356, "dvd_test.svmlight": 2039832,
		"electronics_train.svmlight": 872265, "electronics_test.svmlight": 2461224,
		"kitchen_train.svmlight": 771076, "kitchen_test.svmlight": 2280620,
	}
	var out []File
	for _, s := range sums {
		out = append(out, File{
			Path: "amazon/" + s.name,
			URLs: []string{
				"https://raw.githubusercontent.com/" + graal + s.name,
				"https://github.com/GRAAL-Research/domain_adversarial_neural_network/raw/master/data/" + s.name,
			},
			Size: sizes[s.name], SHA256: s.sum,
			Source: "SHA-256 of the file in the repository's commit 74eec5e (identical to the project's shared copy)",
		})
	}
	return out
}

func mnistFiles() []File {
	files := []struct {
		name string
		size int64
		sum  string
	}{
		{"train-images-idx3-ubyte.gz", 9912422, "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"},
		{"train-labels-idx1-ubyte.gz", 28881, "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"},
		{"t10k-images-idx3-ubyte.gz", 1648877, "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"},
		{"t10k-labels-idx1-ubyte.gz", 4542, "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"},
	}
	var out []File
	for _, f := range files {
		out = append(out, File{
			Path: "mnist/" + f.name,
			URLs: []string{
				"https://storage.googleapis.com/cvdf-datasets/mnist/" + f.name,
				"https://ossci-datasets.s3.amazonaws.com/mnist/" + f.name,
				"http://yann.lecun.com/exdb/mnist/" + f.name,
			},
			Size: f.size, SHA256: f.sum,
			Source: "TensorFlow Datasets' url_checksums/mnist.txt (size and SHA-256 of the original gzip'd idx files)",
		})
	}
	return out
}

// Datasets lists the data sets "wadn data get" knows, by name.
var Datasets = []Dataset{
	{
		Name:  "amazon",
		Files: amazonFiles(),
		Note: "Blitzer et al.'s reviews as the mSDA 5000-feature counts, from the repository of Ganin et al. (BSD-style " +
			"licence). The formats/amazon.npz layout has no public source with a checksum here and is not fetched.",
	},
	{
		Name:  "mnist",
		Files: mnistFiles(),
		Note:  "MNIST by LeCun, Cortes and Burges (CC BY-SA 3.0). The mirrors serve the original files.",
	},
	{
		Name: "usps",
		Files: []File{
			{Path: "usps/usps.bz2", URLs: []string{"https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.bz2"},
				MD5: "ec16c51db3855ca6c91edd34d0e9b197", Source: "MD5 published by torchvision's USPS dataset class"},
			{Path: "usps/usps.t.bz2", URLs: []string{"https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.t.bz2"},
				MD5: "8ea070ee2aca1ac39742fdd1ef5ed118", Source: "MD5 published by torchvision's USPS dataset class"},
		},
		Note: "USPS in LIBSVM's layout (7291 + 2007 rows). No published SHA-256 could be established: the download " +
			"is checked against torchvision's MD5, which detects damage but is no defence against a forged file. " +
			"These are not the bytes of the shared copy, which was converted from usps.h5.",
	},
	{
		Name: "mnist_m",
		Files: []File{
			{Path: "downloads/mnist_m.tar.gz", URLs: []string{"https://cornell.box.com/shared/static/jado7quprg6hzzdubvwzh9umr75damwi"},
				MD5: "859df31c91afe82e80e5012ba928f279", Source: "MD5 published by pytorch-adapt's MNISTM dataset class",
				Unpack: TarGz, Creates: []string{"mnist_m/mnist_m_train_labels.txt", "mnist_m/mnist_m_test_labels.txt"}},
		},
		Note: "MNIST-M (Ganin et al.), the public release of 59001 + 9001 images, unpacked into mnist_m/. The " +
			"authors' own link is a Google Drive page that cannot be fetched by a program; this mirror is a copy " +
			"by a third party. No published SHA-256 could be established: only pytorch-adapt's MD5.",
	},
	{
		Name: "svhn",
		Files: []File{
			{Path: "svhn/train_32x32.mat", URLs: []string{"http://ufldl.stanford.edu/housenumbers/train_32x32.mat"},
				Size: 182040794, SHA256: "435e94d69a87fde4fd4d7f3dd208dfc32cb6ae8af2240d066de1df7508d083b8",
				Source: "TensorFlow Datasets' url_checksums/svhn_cropped.txt"},
			{Path: "svhn/test_32x32.mat", URLs: []string{"http://ufldl.stanford.edu/housenumbers/test_32x32.mat"},
				Size: 64275384, SHA256: "cdce80dfb2a2c4c6160906d0bd7c68ec5a99d7ca4831afa54f09182025b6a75b",
				Source: "TensorFlow Datasets' url_checksums/svhn_cropped.txt"},
		},
		Note: "SVHN cropped digits (Netzer et al.; non-commercial use), 73257 + 26032 images.",
	},
	{
		Name: "synth",
		Files: []File{
			{Path: "synth/synth_train_32x32.mat",
				URLs: []string{"https://media.githubusercontent.com/media/domainadaptation/datasets/" + synthRev + "/synth/synth_train_32x32.mat"},
				Size: 895578032, SHA256: "e0e0924ecd0c0b5a55ed6485aaa7d39937af982397717b89a3d91777aca9433c",
				Source: "the Git LFS pointer of domainadaptation/datasets at commit 91ff022"},
			{Path: "synth/synth_test_32x32.mat",
				URLs: []string{"https://media.githubusercontent.com/media/domainadaptation/datasets/" + synthRev + "/synth/synth_test_32x32.mat"},
				Size: 17851156, SHA256: "6285fe9a1c6f27b379a47263907a37899b59ce86948fd343a5b904435cde5bcc",
				Source: "the Git LFS pointer of domainadaptation/datasets at commit 91ff022"},
		},
		Note: "SynthDigits (Ganin and Lempitsky; CC BY 4.0) in SVHN's layout. The authors' link is a Google Drive " +
			"page; this copy is a research group's Git LFS mirror, whose pointers publish the SHA-256.",
	},
	{
		Name: "office_home",
		Note: "No public source of Office-Home ResNet-50 features in this layout (office_home/office_home_<domain>.npz, " +
			"x float32 N x 2048, y int64) with a checksum could be established. scikit-adaptation publishes a CSV of " +
			"ResNet-50 features with a SHA-256 (OfficeHomeResnet50.csv), in another layout and from another " +
			"extraction than the WADN authors'; it is not fetched. Extract the features yourself into the layout above.",
	},
}

// Lookup returns the data set called name.
func Lookup(name string) (Dataset, bool) {
	for _, d := range Datasets {
		if d.Name == name {
			return d, true
		}
	}
	return Dataset{}, false
}
