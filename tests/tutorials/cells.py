"""The code cells of the five seed tutorials (../shared/seeds), verbatim, in notebook order.

Generated once from the seed files (text dumps 000-003: code up to the printed output; 004: the
notebook's code cells) and checked by eye. Keys: ``cellNN_inM`` = ordinal NN in the file, ``In [M]``.
"""

SEEDS = {
    "000": [
        ("cell000_in2", """import torch
"""),
        ("cell001_in3", """x = torch.empty(5, 3)
print(x)
"""),
        ("cell002_in4", """x = torch.rand(5, 3)
print(x)
"""),
        ("cell003_in5", """x = torch.zeros(5, 3, dtype=torch.long)
print(x)
"""),
        ("cell004_in6", """x = torch.tensor([5.5, 3])
print(x)
"""),
        ("cell005_in7", """# 返回的tensor默认具有相同的torch.dtype和torch.device
x = x.new_ones(5, 3, dtype=torch.float64)
x
"""),
        ("cell006_in8", """# rand_like:返回一个与输入相同大小的张量，该张量由均值为0、方差为1的正态分布的随机数填充
x = torch.rand_like(x, dtype=torch.float)
x
"""),
        ("cell007_in9", """print("shape: ", x.shape)
print("size: ", x.size())
"""),
        ("cell008_in10", """x = torch.eye(3)
x
"""),
        ("cell009_in11", """x = torch.arange(1, 10, 1)
x
"""),
        ("cell010_in12", """x = torch.linspace(-10, 10, 5)
print(x)
y = torch.linspace(-10, 10, 1)
print(y)
z = torch.linspace(-10, 10, 2)
print(z)
v = torch.linspace(-10, 10, 4)
print(v)
"""),
        ("cell011_in13", """# 返回一个由区间[0,1)[0,1]上的均匀分布的随机数组成的张量
x = torch.rand(4)
print(x)
y = torch.rand(2, 3)
print(y)
"""),
        ("cell012_in14", """torch.arange(1, 0, -0.1)
"""),
        ("cell013_in15", """torch.arange(1., 11.)
"""),
        ("cell014_in16", """x = torch.normal(mean=torch.arange(1., 11.), std=torch.arange(1, 0, -0.1))
#第一个数字是从均值为1，标准差为1的正态分布中随机生成的
#第二个是从均值为2，标准差为0.9的正态分布中随机生成
print(x)
y = torch.normal(mean=0.5, std=torch.arange(1., 6.))
print(y)
z = torch.normal(mean=torch.arange(1., 6.))
print(z)
v = torch.normal(2, 3, size=(1, 4))
print(v)
"""),
        ("cell015_in17", """torch.randperm(10)
"""),
        ("cell016_in18", """x = x.new_ones(5, 3, dtype=torch.float64)
x = torch.randn_like(x, dtype=torch.float)
y = torch.rand(5, 3)
y
"""),
        ("cell017_in19", """print(x + y)
"""),
        ("cell018_in20", """torch.add(x, y)
"""),
        ("cell019_in21", """y.add_(x)
y
"""),
        ("cell020_in22", """print(x)
y = x[0, :]
print(y)
y += 1
print(y)
print(x[0, :])
"""),
        ("cell021_in23", """indices = torch.tensor([0, 2])
indices
"""),
        ("cell022_in24", """torch.index_select(y, 0, indices)
"""),
        ("cell023_in25", """v = torch.randn(3, 4)
v
"""),
        ("cell024_in26", """mask = v.ge(0.5)
mask
"""),
        ("cell025_in27", """torch.masked_select(v, mask)
"""),
        ("cell026_in28", """w = torch.eye(3, 4)
w
"""),
        ("cell027_in29", """torch.nonzero(w)
"""),
        ("cell028_in30", """# 如果dim=0，那么它表示的就是你接下来的操作是对于第一维度进行的，也就是行；如果dim=1,那么它表示的就是你接下来的操作是对于第二维度进行的，也就是列
t = torch.tensor([[1,2], [3,4]])
t
"""),
        ("cell029_in31", """b = torch.gather(t,1,torch.LongTensor([[1,0],[1,0]]))
b
"""),
        ("cell030_in32", """b = torch.gather(t,1,torch.LongTensor([[1,1],[1,0]]))
b
"""),
        ("cell031_in33", """b = torch.gather(t, 0, torch.tensor([[0,0], [0,1]]))
b
"""),
        ("cell032_in34", """a = torch.arange(0, 16).view(4, 4)
a
"""),
        ("cell033_in35", """index = torch.tensor([[0,1,2,3]])
a.gather(0, index)
"""),
        ("cell034_in36", """a.gather(1, index)
"""),
        ("cell035_in37", """print(x)
y = x.view(15)
z = x.view(-1, 5)  # -1所指的维度可以根据其他维度的值推出来
print(y)
print(z)
print(x.size(), y.size(), z.size())
"""),
        ("cell036_in38", """x += 1
print(x)
print(y) # 也加了1
"""),
        ("cell037_in39", """# 使用clone还有一个好处是会被记录在计算图中，即梯度回传到副本时也会传到源Tensor。
x_cp = x.clone().view(15)
x -= 1
print(x)
print(x_cp)
"""),
        ("cell038_in40", """x = torch.randn(1)
print(x)
print(x.item())
"""),
        ("cell039_in41", """x = torch.eye(3) + 1
x
"""),
        ("cell040_in42", """# 对角线元素之和(矩阵的迹)
torch.trace(x)
"""),
        ("cell041_in43", """# 对角线元素
x = x.clone() + 1
torch.diag(x)
"""),
        ("cell042_in44", """# 矩阵的上三角/下三角，可指定偏移量
# triu: 返回矩阵（二维张量）的上三角部分或输入的一批矩阵，结果张量的其他元素被设置为0
# tril
x = torch.randn(3,3)
x
"""),
        ("cell043_in45", """torch.triu(x)
"""),
        ("cell044_in46", """# diagonal参数 (int, optional) – “1“对角线向右上一次，"-1"对角线向左下一次
torch.triu(x, diagonal=1)
"""),
        ("cell045_in47", """x = torch.randn(5, 5)
torch.triu(x, diagonal=-1)
"""),
        ("cell046_in48", """# mm/bmm 矩阵乘法，batch的矩阵乘法
x = torch.tensor([[1,2],[3,4]])
x
"""),
        ("cell047_in49", """y = torch.tensor([[5,6],[7,8]])
y
"""),
        ("cell048_in50", """torch.mm(x, y)
"""),
        ("cell049_in51", """input = torch.rand(10, 3, 4)
input
"""),
        ("cell050_in52", """mat = torch.randn(10, 4, 5)
res = torch.bmm(input, mat)
res.size()
"""),
        ("cell051_in53", """# t	转置
x
"""),
        ("cell052_in54", """torch.t(x)
"""),
        ("cell053_in55", """# 与NumPy的dot不同，torch.dot故意只支持计算两个元素数量相同的一维张量的点乘
# dot/cross	内积/外积
torch.dot(torch.tensor([2,3]), torch.tensor([2,1]))
"""),
        ("cell054_in56", """# cross注意事项：
# input和other必须有相同的尺寸，并且其dim维度的尺寸应该是3。
# 如果没有给出dim，则默认为找到的第一个尺寸为3的尺寸。
x = torch.tensor([1,2,3])
x
"""),
        ("cell055_in57", """y = torch.tensor([4,5,6])
y
"""),
        ("cell056_in58", """#？？？？？？？？？？？？？？？？？？？？？？？？？
torch.cross(x, y)
"""),
        ("cell057_in59", """torch.dot(x, y)
"""),
        ("cell058_in60", """# svd	奇异值分解
"""),
        ("cell059_in61", """# 由于x和y分别是1行2列和3行1列的矩阵，如果要计算x + y，那么x中第一行的2个元素被广播（复制）到了第二行和第三行，而y中第一列的3个元素被广播（复制）到了第二列。如此，就可以对2个3行2列的矩阵按元素相加
x = torch.arange(1,3).view(1,2)
print(x)
y = torch.arange(1,4).view(3,1)
print(y)
print(x + y)
"""),
        ("cell060_in62", """x = torch.tensor([1,2])
y = torch.tensor([3,4])
before_id = id(y)
y = x + y
print(id(y) == before_id)
"""),
        ("cell061_in63", """# 把x + y的结果通过[:]写进y对应的内存中
x = torch.tensor([1,2])
y = torch.tensor([3,4])
before_id = id(y)
y[:] = x + y
print(id(y) == before_id)
"""),
        ("cell062_in64", """# 可以使用运算符全名函数中的out参数或者自加运算符+=(也即add_())达到上述效果，例如torch.add(x, y, out=y)和y += x(y.add_(x))
x = torch.tensor([1,2])
y = torch.tensor([3,4])
before_id = id(y)
torch.add(x, y, out=y) # y += x, y.add_(x)
print(id(y) == before_id)
"""),
        ("cell063_in65", """a = torch.ones(5)
a
"""),
        ("cell064_in66", """b = a.numpy()
b
"""),
        ("cell065_in67", """a += 1
a
"""),
        ("cell066_in68", """b += 1
b
"""),
        ("cell067_in69", """import numpy as np
a = np.ones(5, dtype='int')
b = torch.from_numpy(a)
b
"""),
        ("cell068_in70", """a += 1
a
"""),
        ("cell069_in71", """b += 1
b
"""),
        ("cell070_in72", """# 直接通过构造函数创建
c = torch.tensor(a)
c
"""),
        ("cell071_in73", """x = torch.ones(2, 2, requires_grad=True)
print(x)
print(x.grad_fn)
"""),
        ("cell072_in74", """y = x + 2
print(y)
print(y.grad_fn)
"""),
        ("cell073_in75", """# x是直接创建的，所以它没有grad_fn; y是通过一个加法操作创建的，所以它有一个为<AddBackward>的grad_fn
# 像x这种直接创建的称为叶子节点，叶子节点对应的grad_fn是None

# 只有叶子张量有梯度
print(x.is_leaf)
print(y.is_leaf)
"""),
        ("cell074_in76", """z = y * y * 3
out = z.mean
print(z)
print(out)
"""),
        ("cell075_in77", """a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)
"""),
        ("cell076_in78", """x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = 2 * x
z = y.view(2, 2)

print(z)
"""),
        ("cell077_in79", """v = torch.tensor([[1.0, 0.1], [0.01, 0.001]], dtype=torch.float)
z.backward(v)
print(x.grad)
"""),
        ("cell078_in80", """x = torch.tensor(1.0, requires_grad=True)
y1 = x ** 2
with torch.no_grad():
    y2 = x ** 3
y3 = y1 + y2

print(x.requires_grad)
print(y1, y1.requires_grad)
print(y2, y2.requires_grad)
print(y3, y3.requires_grad)
"""),
        ("cell079_in81", """y3.backward()
print(x.grad)
"""),
        ("cell080_in82", """# y2.backward() # 报错
"""),
        ("cell081_in86", """# 如果我们想要修改tensor的数值，但是又不希望被autograd记录（即不会影响反向传播），那么我么可以对tensor.data进行操作。
x = torch.ones(1, requires_grad=True)
print(x.data)
print(x.data.requires_grad)

y = x * 2
x.data *= 100 # 只改变了值，不会记录在计算图，所以不会影响梯度传播

y.backward()
print(x)
print(x.grad)
"""),
        ("cell082_in13", """import torch

x = torch.tensor([1.0,2.0,3.0], requires_grad=True)
y = x ** 2
print(y.sum())
# y.backward() ×
y.sum().backward()
print(x.grad)
"""),
        ("cell083_in1", """import torch
"""),
        ("cell084_in2", """x = torch.arange(1,4).view(1,3)
print(x)
y = torch.arange(1,5).view(4,1)
print(y)
print(x + y)
"""),
    ],
    "001": [
        ("cell000_in1", """import torch
"""),
        ("cell001_in2", """# 创建一个尺寸为（5，3）的二阶张量
x = torch.rand(5, 3)
x
"""),
        ("cell002_in3", """# 创建一个尺寸为（5, 3），内容全是1的张量
y = torch.ones(5, 3)
y
"""),
        ("cell003_in4", """# 创建一个三维的张量，尺寸为（2,5,3），内容全是0
z = torch.zeros(2, 5, 3)
z
"""),
        ("cell004_in5", """# 访问张量z中的第一个元素
z[0]
"""),
        ("cell005_in6", """# 访问张量x中第2行第3列的数字
x[1, 2]
"""),
        ("cell006_in7", """# 还可以使用切片的方法来访问张量，访问张量x中第3列的全部元素
x[:, 2]
"""),
        ("cell007_in8", """# 相加
z = x + y
z
"""),
        ("cell008_in9", """# 两个二维张量的矩阵乘法（需要调用PyTorch的matrix multiply命令）
q = x.mm(y.t())
q
"""),
        ("cell009_in10", """import numpy as np

# x_tensor是一个尺寸为(2, 3)的随机向量
x_tensor = torch.randn(2, 3)
# y_numpy是一个尺寸为(2, 3)的随机矩阵
y_numpy = np.random.randn(2, 3)
"""),
        ("cell010_in11", """# 将张量转换为NumPy
x_numpy = x_tensor.numpy()
x_numpy
"""),
        ("cell011_in12", """# 将NumPy转换为张量
y_tensor = torch.from_numpy(y_numpy)
y_tensor
"""),
        ("cell012_in13", """torch.cuda.is_available()
"""),
        ("cell013_in15", """# 导入PyTorch中自动微分变量的包
from torch.autograd import Variable
# 创建一个叫作x的自动微分变量，它包含了一个尺寸为(2, 2)的张量，取值为1
x = Variable(torch.ones(2, 2), requires_grad=True)
x
"""),
        ("cell014_in16", """y = x + 2
y
"""),
        ("cell015_in17", """# 通过y.data查看y中存储的数值
y.data
"""),
        ("cell016_in18", """# 查看y的grad_fn（其实就是计算图中的箭头）
y.grad_fn
"""),
        ("cell017_in19", """# 再进行运算y * y
z = y * y
# 通过z.grad_fn查看Variable z的grad_fn属性
z.grad_fn
"""),
        ("cell018_in20", """# 再加一步计算
# 对z求平均，即对矩阵的每个元素求和再除以元素的个数
t = torch.mean(z)
t
"""),
        ("cell019_in21", """# 通过.backward()进行自动求导计算
t.backward()
"""),
        ("cell020_in22", """print(z.grad)
print(y.grad)
# 只有计算图上的叶节点才可以通过.backward()获得梯度信息
# z和y不是叶节点，所以都没有梯度信息
print(x.grad)
"""),
        ("cell021_in24", """# 创建一个1 * 2的自动微分变量（1维向量）s
s = Variable(torch.FloatTensor([[0.01, 0.02]]), requires_grad = True)
# 再创建一个2 * 2的矩阵型自动微分变量x
x = Variable(torch.ones(2, 2), requires_grad = True)
"""),
        ("cell022_in25", """# 用s反复乘以x（矩阵乘法）10次，注意s始终是自动微分变量
for i in range(10):
    s = s.mm(x)
# 对s中的各个元素求均值，得到一个尺寸为（1，1）的张量
z = torch.mean(s)
"""),
        ("cell023_in26", """# 计算叶子节点变量的梯度信息
z.backward()
print(x.grad)
print(s.grad)
"""),
    ],
    "002": [
        ("cell000_in1", """import torch  # 加载 torch 库 
torch.__version__   # 查看版本
"""),
        ("cell001_in2", """x = torch.arange(12)
print(type(x))
x
"""),
        ("cell002_in3", """x.shape
"""),
        ("cell003_in4", """x.size()
"""),
        ("cell004_in5", """X = x.reshape((-1, 4))
print(X.shape)
X
"""),
        ("cell005_in6", """torch.zeros((2, 3, 4))
"""),
        ("cell006_in7", """torch.ones((3, 4))
"""),
        ("cell007_in8", """torch.empty(5, 3)
"""),
        ("cell008_in9", """print(torch.zeros(2, 3).dtype)
tensor_zeros_int = torch.zeros(2, 3, dtype=torch.long)
print(tensor_zeros_int.dtype)
"""),
        ("cell009_in10", """torch.randn(3,4)
"""),
        ("cell010_in11", """torch.rand(5, 3)
"""),
        ("cell011_in12", """Y = torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
Y
"""),
        ("cell012_in13", """x = torch.tensor([5.5, 3], dtype=torch.double)
print(x.dtype)
x = x.new_ones(5, 3)      # new_* methods take in sizes
print(x)
x = torch.randn_like(x, dtype=torch.float)    # override dtype!
print(x)
"""),
        ("cell013_in14", """# 按元素加法如下：
X + Y
"""),
        ("cell014_in15", """torch.add(X, Y)
"""),
        ("cell015_in16", """# alpha 参数
torch.add(X, Y, alpha = 1)
"""),
        ("cell016_in17", """# out 参数
Z = torch.empty(3, 4)
torch.add(X, Y, out=Z)
Z
"""),
        ("cell017_in18", """# 通过 in-place 操作直接将计算结果覆盖到 Y 上 
Z.add_(X)
Z
"""),
        ("cell018_in19", """# 按元素减法如下：
X - Y == torch.sub(X, Y)
"""),
        ("cell019_in20", """# 按元素乘法如下：
X * Y == torch.mul(X, Y)
"""),
        ("cell020_in21", """# 按元素除法如下：
X / Y == torch.div(X, Y)
"""),
        ("cell021_in22", """torch.mm(X, Y.T)
"""),
        ("cell022_in23", """a =torch.randn(2, 3)
print(a)
# b =torch.abs(a)
# b =torch.exp(a)
b =torch.pow(a, 2)
print(b)
"""),
        ("cell023_in24", """torch.cat((X, X))
"""),
        ("cell024_in25", """# torch.cat((X, X), dim=1)
torch.cat((X, Y), dim=1)
"""),
        ("cell025_in26", """X == Y
"""),
        ("cell026_in27", """x = torch.randn(4, 4)
y = x.view(16)
z = x.view(-1, 8)   # 使用 -1 时 pytorch 将会自动根据其他维度进行推导
print(x.size(), y.size(), z.size())
"""),
        ("cell027_in28", """X.sum()
"""),
        ("cell028_in29", """X.sum().item()
"""),
        ("cell029_in30", """# norm only supports floating-point dtypes
Z.norm()
"""),
        ("cell030_in31", """Z.norm().item()
"""),
        ("cell031_in32", """a =torch.randn(2,3)
print(a)
b =torch.clamp(a, -0.5, 0.5)
print(b)
"""),
        ("cell032_in33", """A = torch.arange(3).reshape((3, 1))
B = torch.arange(2).reshape((1, 2))
A, B
"""),
        ("cell033_in35", """A = torch.arange(48).reshape((8, 1, 6, 1))
B = torch.arange(35).reshape((7, 1, 5))
(A + B).size()
"""),
        ("cell034_in36", """X[1:3]
"""),
        ("cell035_in37", """X[1, 2] = 9
X
"""),
        ("cell036_in38", """X[1:2, :] = 12
X
"""),
        ("cell037_in39", """before = id(Y)
Y = Y + X
id(Y) == before
"""),
        ("cell038_in40", """Z = torch.zeros_like(Y)
before = id(Z)
Z[:] = X + Y
id(Z) == before
"""),
        ("cell039_in41", """torch.add(X, Y, out=Z)
id(Z) == before
"""),
        ("cell040_in42", """# 与上例对比着看
Z = torch.add(X, Y)
id(Z) == before
"""),
        ("cell041_in43", """before = id(X)
X += Y
id(X) == before
"""),
        ("cell042_in44", """a = torch.ones(5)
print(a, type(a))
b = a.numpy()
print(b, type(b))
"""),
        ("cell043_in45", """a.add_(1)
print(a)
print(b)
"""),
        ("cell044_in46", """import numpy as np

a = np.ones(5)
b = torch.from_numpy(a)
np.add(a, 1, out=a)
print(a)
print(b)
"""),
        ("cell045_in47", """print(torch.cuda.is_available())
"""),
        ("cell046_in48", """# let us run this cell only if CUDA is available
# We will use ``torch.device`` objects to move tensors in and out of GPU
if torch.cuda.is_available():
    device = torch.device("cuda")          # a CUDA device object
    y = torch.ones_like(x, device=device)  # directly create a tensor on GPU
    x = x.to(device)                       # or just use strings ``.to("cuda")``
    z = x + y
    print(z)
    print(z.to("cpu", torch.double))       # ``.to`` can also change dtype together!
"""),
        ("cell047_in49", """x = torch.arange(4, dtype=torch.float).reshape((4, 1))
x
"""),
        ("cell048_in50", """# only Tensors of floating point dtype can require gradients
x.requires_grad = True 
x
"""),
        ("cell049_in51", """y = 2 * torch.mm(x.T, x)
y
"""),
        ("cell050_in52", """# y.backward()
y.backward(retain_graph=True)
"""),
        ("cell051_in53", """# assert (x.grad - 4 * x).norm().item() == 0
x.grad  # 注意，x.grad 是和 x 同形的张量。
"""),
        ("cell052_in54", """torch.manual_seed(10)  #用于设置随机数

w = torch.tensor([1.], requires_grad=True) #创建叶子张量，并设定requires_grad为True，因为需要计算梯度；
x = torch.tensor([2.], requires_grad=True) #创建叶子张量，并设定requires_grad为True，因为需要计算梯度；

a = torch.add(w, x)    #执行运算并搭建动态计算图
b = torch.add(w, 1)
y = torch.mul(a, b)

y.backward(retain_graph=True)   
print(w.grad)   #输出为tensor([5.])
"""),
        ("cell053_in55", """x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = 2 * x
z = y.view(2, 2)
print(z)
"""),
        ("cell054_in56", """# z.backward() # 会报错
"""),
        ("cell055_in57", """v = torch.tensor([[1.0, 0.1], [0.01, 0.001]], dtype=torch.float)
z.backward(v, retain_graph=True)
print(x.grad)
# 注意，x.grad 是和 x 同形的张量。
"""),
        ("cell056_in58", """x = torch.tensor(1.0, requires_grad=True)
y1 = x ** 2 

# Way 1
with torch.no_grad():
    y2 = x ** 3
################

# # Way 2
# y2 = x ** 3
# y2 = y2.detach()
################

y3 = y1 + y2
    
print(x.requires_grad)
print(y1, y1.requires_grad) # True
print(y2, y2.requires_grad) # False
print(y3, y3.requires_grad) # True
"""),
        ("cell057_in59", """y3.backward()
print(x.grad)
"""),
        ("cell058_in60", """x = torch.ones(1,requires_grad=True)

print(x.data) # 还是一个tensor
print(x.data.requires_grad) # 但是已经是独立于计算图之外

y = 2 * x
x.data *= 100 # 只改变了值，不会记录在计算图，所以不会影响梯度传播

y.backward()
print(x) # 更改data的值也会影响tensor的值
print(x.grad)
"""),
        ("cell059_in61", """def f(a):
    b = a * 2
    while b.norm().item() < 1000:
        b = b * 2
    if b.sum().item() > 0:
        c = b
    else:
        c = 100 * b
    return c
"""),
        ("cell060_in62", """a = torch.randn(1, requires_grad=True)
c = f(a)
c.backward()
"""),
        ("cell061_in63", """a.grad == c / a
"""),
    ],
    "003": [
        ("cell000_in1", """import torch
# leaf variable 就是直接create的Tensor，他们不是其他操作的结果
x = torch.ones(2,2, requires_grad=True)
# 像x.t_() 这种in-place operation不能在requires_grad=True中使用
print(x)
"""),
        ("cell001_in2", """y = x + 2
print(y)
"""),
        ("cell002_in3", """# 所谓的grad_fn 就是创造这个Tensor的function
print(y.grad_fn)
"""),
        ("cell003_in4", """print(y)
print(y.t_())
"""),
        ("cell004_in5", """# 和TF一样，这里的相乘都是elementwise
# 假如这里将表达式改成z = y * y.t_() * 3 ，这里不会得到matrix相乘的结果，因为Tensor.t_()是一个in-place operation
# 所以在evaluate这个式子数值的时候也会将y改变，在这个expression中y与y.t_()是等效。
z = y * y * 3
# Tensor.mean() 等效于torch.mean()
out = z.mean()
print(z, out)
"""),
        ("cell005_in6", """# 不同于torch.rand()，这里生成的是从N(0,1) Gaussian Distribution采样的Tensor
a = torch.randn(2,2)
a = ((a * 3) / (a - 1))
# requires_grad 这个flag by default 是 false的
print(a.requires_grad)
# Tensor.requires_grad_()能将Tensor.requires_grad这个flag改变，如True，就开始追踪，有grad_fn
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b)
print(b.grad_fn)
"""),
        ("cell006_in7", """# Tensor.backward() 开始backpropagation
out.backward()
"""),
        ("cell007_in11", """# 求出out对x的导数，因为x为一个矩阵，求出来的导数跟x形状一致
print(x.grad)
"""),
        ("cell008_in15", """x = torch.randn(3, requires_grad=True)
# Tensor.data.norm()等于torch.norm(Tensor)，在默认情况下计算的是Forbenius Norm(matrix) 或者 L2 Norm(Vector)
y = x * 2
while y.data.norm() < 1000:
    print(y.data.norm(), y)
    y = y * 2
    
print(y)
"""),
        ("cell009_in16", """# 这里y是一个向量， x也是一个向量，dy/dx应该是一个Jacobian矩阵， 但是若果y与x是更高维的Tensor，这里就无法给出导数的定义，
# 所以PyTorch规定，Tensor.backward()，若果backward中没有额外的参数就不能求导，只能求scalar对Tensor的导数
# 这里给出一个简单的例子，假设y也是一个中间变量，已知最终结果对y的求导结果为v，求最终结果对于x的求导
# 可以理解为(y_transpose * v)得到一个scalar后再到x求导，这里的v可以像上面一个理解为最终结果对y的求导，
# 也可以理解为对y各个分量求和的权重
v = torch.tensor([0.1, 1.0, 0.001], dtype=torch.float)
y.backward(v)
print(x.grad)
"""),
        ("cell010_in18", """# x在上一个cell开了requires_grad，所以在它基础计算的Tensor自然也都是开了追踪
# 除非有no_grad()暂时把追踪关闭
print(x.requires_grad)
print((x**2).requires_grad)

with torch.no_grad():
    print((x**2).requires_grad)
"""),
        ("cell011_in19", """# 或者使用Tensor.detach()，返回的值与x一样但是不再具有追踪功能
print(x.requires_grad)
y = x.detach()
print(y.requires_grad)
# Tensor0.eq(Tensor1) 与torch.eq()一样，会返回一个elementwise的BoolTensor
# BoolTensor.all()会返回另一个boolTensor，如果BoolTensor全部都是True，它也返回一个True,否则只要有一个是False就返回一个False
print(x.eq(y).all())
"""),
    ],
    "004": [
        ("cell000_in1", """# 查看PyTorch的版本号
import torch as t
t.__version__
"""),
        ("cell001_in2", """# 指定Tensor的形状
a = t.Tensor(2, 3)
a # 数值取决于内存空间的状态，print时候可能overflow
"""),
        ("cell002_in3", """# 用list的数据创建Tensor
b = t.Tensor([[1,2,3],[4,5,6]])
b
"""),
        ("cell003_in4", """b.tolist() # 把Tensor转为list
"""),
        ("cell004_in5", """b_size = b.size()
b_size
"""),
        ("cell005_in6", """# 统计b中元素总个数，2*3，两种方式等价
b.numel(), b.nelement()
"""),
        ("cell006_in7", """# 创建一个和b形状一样的Tensor c
c = t.Tensor(b_size)
# 创建一个元素为2和3的Tensor d
d = t.Tensor((2, 3))
c, d
"""),
        ("cell007_in8", """# torch.Tensor能直接创建空的张量
t.Tensor()
"""),
        ("cell008_in9", """# torch.tensor不能直接创建空的张量，需要传入一个空的data
# t.tensor() # TypeError: tensor() missing 1 required positional arguments: "data"
t.tensor(())
"""),
        ("cell009_in10", """a = t.tensor([2,3])
print(a.type())
b = t.Tensor([2,3])
print(b.type())
"""),
        ("cell010_in11", """import numpy as np
arr = np.ones((2, 3), dtype=np.float64)
a = t.tensor(arr)
a
"""),
        ("cell011_in12", """# 创建一个形状是(2,3)值全为1的Tensor
t.ones(2, 3)
"""),
        ("cell012_in13", """input_tensor = t.tensor([[1, 2, 3], [4, 5, 6]])
t.ones_like(input_tensor)
"""),
        ("cell013_in14", """# 创建一个形状是(2,3)的全0的Tensor
t.zeros(2, 3)
"""),
        ("cell014_in15", """# 创建一个对角线为1，其余为0的Tensor,不要求行列数一致
t.eye(2, 3, dtype=t.int)
"""),
        ("cell015_in16", """# 创建一个起始值为1，上限为6，步长为2的Tensor
t.arange(1, 6, 2)
"""),
        ("cell016_in17", """# 创建一个均匀间距的Tensor，将1到10的数分为3份
t.linspace(1, 10, 3)
"""),
        ("cell017_in18", """# 创建一个形状是(2,3)的Tensor，其取值为从标准正态分布中抽取的随机数
t.randn(2, 3)
"""),
        ("cell018_in19", """# 创建一个长度为5的随机排列的Tensor
t.randperm(5)
"""),
        ("cell019_in20", """# 创建一个大小为(2，3)值全1的Tensor，保留原始的torch.dtype和torch.device
tensor3 = t.tensor((), dtype=t.int32)
tensor3.new_ones((2, 3))
"""),
        ("cell020_in21", """# 命名张量API在后续还有可能还有变化，所以会系统会提示warning，在此忽略
import warnings
warnings.filterwarnings("ignore")
# 直接使用names参数创建命名张量
imgs = t.randn(1, 2, 2, 3, names=('N', 'C', 'H', 'W'))
imgs.names
"""),
        ("cell021_in22", """# 查看旋转操作造成的维度变换
imgs_rotate = imgs.transpose(2, 3)
imgs_rotate.names
"""),
        ("cell022_in23", """# 通过refine_names()函数对未命名的张量命名，其中不需要名字的可以用None表示
another_imgs = t.rand(1, 3, 2, 2)
another_imgs = another_imgs.refine_names('N', None, 'H', 'W')
another_imgs.names
"""),
        ("cell023_in24", """# 修改部分维度的名称
renamed_imgs = imgs.rename(H='height', W='width')
renamed_imgs.names
"""),
        ("cell024_in25", """# 通过维度的名称做维度转换
convert_imgs = renamed_imgs.align_to('N', 'height', 'width', 'C')
convert_imgs.names
"""),
        ("cell025_in26", """# 更改默认Tensor的类型
a = t.rand(2, 3)
print(a.dtype)
# 设置默认类型为DoubleTensor
t.set_default_tensor_type('torch.DoubleTensor')
a = t.rand(2, 3)
print(a.dtype)
# 恢复之前的默认设置
t.set_default_tensor_type('torch.FloatTensor')
"""),
        ("cell026_in27", """# 通过type方法和快捷方法修改Tensor的类型
b1 = a.type(t.FloatTensor)
b2 = a.float()
a.dtype, b1.dtype, b2.dtype
"""),
        ("cell027_in28", """# new方法相当于利用DoubleTensor的构造函数，因为此时a是torch.float64类型
a.new(2,3)
"""),
        ("cell028_in29", """a = t.randn(3, 4)
a
"""),
        ("cell029_in30", """print("查看第1行结果：", a[0])
print("查看第2列结果：", a[:,1])
print("查看第2行最后两个元素：", a[1, -2:])
"""),
        ("cell030_in31", """# 返回一个ByteTensor
print(a > 0) # bool型
print((a > 0).int()) # 整型
"""),
        ("cell031_in32", """# 返回Tensor中满足条件的结果，下面两种写法等价
# 选择返回的结果与原Tensor不共享内存空间
print(a[a > 0])
print(a.masked_select(a>0)) 
# 用torch.where保留原始的索引位置，不满足条件的位置置0
print(t.where(a > 0, a, t.zeros_like(a)))
"""),
        ("cell032_in33", """a = t.arange(0, 16).view(4, 4)
a
"""),
        ("cell033_in34", """# 选取对角线的元素
index = t.tensor([[0,1,2,3]])
a.gather(0, index)
"""),
        ("cell034_in35", """# 选取反对角线上的元素
index = t.tensor([[3,2,1,0]]).t()
a.gather(1, index)
"""),
        ("cell035_in36", """# 选取两个对角线上的元素
index = t.tensor([[0,1,2,3],[3,2,1,0]]).t()
b = a.gather(1, index)
b
"""),
        ("cell036_in37", """# 把两个对角线元素放回去到指定位置
c = t.zeros(4,4).long()
c.scatter_(1, index, b)
"""),
        ("cell037_in38", """t.Tensor([1.]).item()
# t.Tensor([1, 2]).item()  ->
# raise ValueError: only one element tensors can be converted to Python scalars
"""),
        ("cell038_in39", """x = t.arange(0,16).view(2,2,4)
x
"""),
        ("cell039_in40", """x[[1, 0], [1, 1], [2, 0]] # x[1,1,2]和x[0,1,0]
"""),
        ("cell040_in41", """x[[1, 0], [0], [1]] # x[1,0,1],x[0,0,1]
"""),
        ("cell041_in42", """a = t.arange(0, 6).float().view(2, 3)
t.cos(a)
"""),
        ("cell042_in43", """# 取模运算的运算符重载，二者等价
print(a % 3)
print(t.fmod(a, 3))
"""),
        ("cell043_in44", """# 将a中的值进行上下限截断
print(a)
print(t.clamp(a, min=2, max=4))
"""),
        ("cell044_in45", """# 注意对比是否保留维度1的区别
b = t.ones(2, 3)
print(b.sum(dim=0, keepdim=True ),b.sum(dim=0, keepdim=True ).shape)
print(b.sum(dim=0, keepdim=False), b.sum(dim=0, keepdim=False).shape)
"""),
        ("cell045_in46", """a = t.arange(2, 8).view(2, 3)
print(a)
print(a.cumsum(dim=1)) # 沿着行累加
"""),
        ("cell046_in47", """a = t.linspace(0, 15, 6).view(2, 3)
b = t.linspace(15, 0, 6).view(2, 3)
print(a > b)
print("a中大于b的元素: ", a[a > b]) # 返回a中大于b的元素
print("a中最大的元素: ", t.max(a)) # 返回a中最大的元素
"""),
        ("cell047_in48", """t.max(b, dim=1)
# 第一个返回值15和6分别表示第0行和第1行最大的元素
# 第二个返回值的0和0表示上述最大的数是该行第0个元素
"""),
        ("cell048_in49", """t.max(a, b) # 两个Tensor对应位置上较大的元素
"""),
        ("cell049_in50", """a = t.linspace(0, 15, 6).view(2, 3)
b = a.t()
b.is_contiguous()
"""),
        ("cell050_in51", """b = b.contiguous()
b.is_contiguous()
"""),
        ("cell051_in52", """import numpy as np
a = np.ones([2, 3],dtype=np.float32)
a
"""),
        ("cell052_in53", """# 从NumPy转化为Tensor，下面两种方式等价
b = t.from_numpy(a)
# 注意此时是大写的Tensor，torch.tensor()只进行数据拷贝，不会共享内存。
# b = t.Tensor(a)
b
"""),
        ("cell053_in54", """# 此时，NumPy和Tensor是共享内存的
a[0, 1] = -1
b # 修改a的值，b的值也会被修改
"""),
        ("cell054_in55", """a = np.ones([2, 3])
# 注意和上面的a的区别（dtype不是float32）
a.dtype
"""),
        ("cell055_in56", """b = t.Tensor(a) # 此处进行拷贝，不共享内存
b.dtype
"""),
        ("cell056_in57", """c = t.from_numpy(a) # 注意c的类型（DoubleTensor）
c
"""),
        ("cell057_in58", """a[0, 1] = -1
print(b) # b与a不共享内存，所以即使a改变了，b也不变
print(c) # c与a共享内存
"""),
        ("cell058_in59", """a_tensor = t.tensor(a)
a_tensor[0, 1] = 1
a # a和a_tensor不共享内存
"""),
        ("cell059_in60", """a = t.arange(0, 6).float()
b = a.view(2, 3)
# id(变量)可以查看它在内存中的地址
# Storage的内存地址一样，即它们是同一个Storage
id(b.storage()) == id(a.storage())
"""),
        ("cell060_in61", """# a改变，b也随之改变，因为他们共享Storage
a[1] = 100
b
"""),
        ("cell061_in62", """# c取得a的部分索引，只改变了head信息，Storage相同
c = a[2:] 
id(c.storage()) == id(a.storage())
"""),
        ("cell062_in63", """c.data_ptr(), a.data_ptr() # data_ptr返回Tensor首元素的内存地址
# 可以看出两个内存地址相差8，这是因为2*4=8：相差两个元素，每个元素占4个字节(float)
# 如果差值不是8（如16），可以用a.type()查看一下数据类型是不是torch.FloatTensor
"""),
        ("cell063_in64", """c[0] = -100 # c[0]的内存地址对应a[2]的内存地址
a
"""),
        ("cell064_in65", """d = t.Tensor(c.storage()) # 此处拷贝共享了内存
d[0] = 6666
b
"""),
        ("cell065_in66", """# 下面４个Tensor共享Storage
id(a.storage()) == id(b.storage()) == id(c.storage()) == id(d.storage())
"""),
        ("cell066_in67", """# c取得a的部分索引，改变了偏移量
a.storage_offset(), c.storage_offset(), d.storage_offset()
"""),
        ("cell067_in68", """e = b[::2, ::2] # 隔2行/列取一个元素
print(id(e.storage()) == id(a.storage())) # 共享内存
print(e.is_contiguous()) # e的存储空间是不连续的
"""),
        ("cell068_in69", """import torch as t
tensor = t.arange(24).reshape(2, 3, 4)
# tensor.shape 和tensor.size() 等价
print(f"a.shape={tensor.shape}. a.size()={tensor.size()}")
"""),
        ("cell069_in70", """f'这是个{tensor.dim()}维Tensor, 总共{tensor.numel()}个元素'
"""),
        ("cell070_in71", """a = t.arange(1, 13)
b = a.view(2, 6)
c = a.reshape(2, 6) # 此时view和reshape等价，因为Tensor是contiguous
# a,b,c三个对象的内存地址是不一样的，其中保存的是Tensor的形状(size)、步长(stride)、数据类型(type)等信息
id(a)==id(b)==id(c)
"""),
        ("cell071_in72", """# view和reshape存储在与原始对象不同的地址内存中，但是它们共享存储器Storage，也就意味着它们共享基础数据
id(a.storage())==id(b.storage())==id(c.storage())
"""),
        ("cell072_in73", """b = b.t() # b 不再连续
b.reshape(-1, 4) # reshape 可以

# 下面会报错，view无法在改变数据存储的情况下进行形状变化
# b.view(-1, 4)
"""),
        ("cell073_in74", """# 创建一张噪声图像, 并计算RGB每一个通道的噪声均值
img_3xHxW = t.randn(3,128,256) 

# 将img_3xHxW的后两维合并
img_3xHW = img_3xHxW.view(3, -1)
# 写法等价于img_3xHxW.view(3,128*256)
# 也等价于img_3xHxW.flatten(1,2)
img_3xHW.mean(dim=1)
"""),
        ("cell074_in75", """# 图片除了RGB通道，还可以有alpha通道用来表示透明度
alpha_HxW = t.rand(128,256)
alpha_1xHxW = alpha_HxW[None] # 等价于 alpha.unsqueeze(0)
rgba_img = t.cat([alpha_1xHxW, img_3xHxW], dim=0)
rgba_img.shape
"""),
        ("cell075_in76", """# 去掉第一维的1
# 也可以使用alpha_1xHxW.squeeze()：去掉所有为1的维度
# 也可以使用alpha_1xHxW.flatten(0,1): 1和128合并
# 也可以使用alpha_1xHxW[0]： 通过索引取出第一维的数据
alpha_HxW = alpha_1xHxW.view(128, 256)
"""),
        ("cell076_in77", """mask = t.arange(6).view(2,3) # 一张高为2，宽为3的图片
mask
"""),
        ("cell077_in78", """# 将图片旋转90度, 也就是第一个维度(0)和第二个维度交换
# 等价于mask.transpose(1,0)
# 等价于mask.t() 或 img.T
# 等价于mask.permute(1,0), 不等价于img.permute(0,1)
mask.transpose(0,1)
"""),
        ("cell078_in79", """# 单纯地改变图片的形状
# 注意和上面的区别，结果仍然是连续的
mask.view(3,2)
"""),
        ("cell079_in80", """# PyTorch等深度学习框架中图片一般存储为3xHxW
img_3xHxW = t.randn(3,128,256) 

# 而在OpenCV/NumPy/skimage 中，图片一般存储为HxWx3
# img_3xHxW的形状为shape=[3,H,W],经过permute(1,2,0)得到的形状为:
# [shape[1], shape[2], shape[0]] = [H, W, 3]
img_HxWx3 = img_3xHxW.permute(1,2,0)

img_HxWx3.is_contiguous()
"""),
        ("cell080_in81", """img_HxWx3.reshape(-1) # .view 会报错，因为img_HxWx3不连续
"""),
        ("cell081_in82", """H, W = 4, 5
img_3xHxW = t.randn(3, H, W)

# 目标数据排列和输入一样，直接使用reshape
img_3xHW = img_3xHxW.reshape(3, -1)

# 目标数据排列和输入不一样，先通过transpose变成(3,W,H), 再变成(3,WH)
img_3xWH = img_3xHxW.transpose(1, 2).reshape(3, -1)

# 再变形为3xWxH的形式
img_3xWxH = img_3xWH.reshape(3, W, H)
"""),
        ("cell082_in83", """import torch as t
%matplotlib inline
from matplotlib import pyplot as plt
from IPython import display

device = t.device('cpu') #如果你想用GPU，改成t.device('cuda:0')
"""),
        ("cell083_in84", """# 设置随机数种子，保证在不同电脑上运行时下面的输出一致
t.manual_seed(1000) 

def get_fake_data(batch_size=8):
    ''' 产生随机数据：y=x*2+3，加上了一些噪声'''
    x = t.rand(batch_size, 1, device=device) * 5
    y = x * 2 + 3 +  t.randn(batch_size, 1, device=device)
    return x, y
"""),
        ("cell084_in85", """# 来看看产生的x-y分布
x, y = get_fake_data(batch_size=16)
plt.scatter(x.squeeze().cpu().numpy(), y.squeeze().cpu().numpy())
"""),
        ("cell085_in86", """# 随机初始化参数
w = t.rand(1, 1).to(device)
b = t.zeros(1, 1).to(device)

lr =0.02 # 学习率learning rate

for ii in range(500):
    x, y = get_fake_data(batch_size=4)
    
    # forward：计算loss
    y_pred = x.mm(w) + b.expand_as(y) #expand_as用到了广播法则，将在第六章详析介绍
    loss = 0.5 * (y_pred - y) ** 2 # 均方误差
    loss = loss.mean()
    
    # backward：手动计算梯度
    dloss = 1
    dy_pred = dloss * (y_pred - y)
    
    dw = x.t().mm(dy_pred)
    db = dy_pred.sum()
    
    # 更新参数
    w.sub_(lr * dw) # inplace修改
    b.sub_(lr * db)
    
    if ii%50 ==0:
        # 画图
        display.clear_output(wait=True)
        x = t.arange(0, 6).float().view(-1, 1)
        print(x.type(), w.type())
        y = x.mm(w) + b.expand_as(x)
        plt.plot(x.cpu().numpy(), y.cpu().numpy()) # predicted
        
        x2, y2 = get_fake_data(batch_size=32) 
        plt.scatter(x2.numpy(), y2.numpy()) # true data
        
        plt.xlim(0, 5)
        plt.ylim(0, 13)
        plt.show()
        plt.pause(0.5)
        
print('w: ', w.item(), 'b: ', b.item())
"""),
        ("cell086_in87", """from __future__ import print_function
import torch as t
# 下面两种写法等价
a = t.randn(3,4, requires_grad=True)
# a = t.randn(3, 4).requires_grad_()
a.requires_grad
"""),
        ("cell087_in88", """# 也可以单独设置requires_grad
a = t.randn(3, 4)
a.requires_grad = True
"""),
        ("cell088_in89", """b = t.zeros(3,4).requires_grad_()
c = (a + b).sum()
c.backward()
c
"""),
        ("cell089_in90", """a.grad
"""),
        ("cell090_in91", """# 此处虽然没有指定c需要求导，但c依赖于a，而a需要求导，
# 因此c的requires_grad属性会自动设为True
a.requires_grad, b.requires_grad, c.requires_grad
"""),
        ("cell091_in92", """a.is_leaf, b.is_leaf, c.is_leaf
"""),
        ("cell092_in93", """a = t.rand(10, requires_grad=True)
a.is_leaf
"""),
        ("cell093_in94", """# 接下来几个测试是在有GPU的环境下进行的
b = t.rand(10, requires_grad=True).cuda(0)
b.is_leaf # b是由CPU上的Tensor转换为cuda上的Tensor创建的，所以不是Leaf Tensor
"""),
        ("cell094_in95", """c = t.rand(10, requires_grad=True) + 2
c.is_leaf
"""),
        ("cell095_in96", """d = t.rand(10).cuda(0)
print(d.requires_grad) # False
print(d.is_leaf) # 除了创建外没有其他操作（由autograd实现的）
"""),
        ("cell096_in97", """e = t.rand(10).cuda(0).requires_grad_()
e.is_leaf # 同样的，在创建e的时候没有额外的操作
"""),
        ("cell097_in98", """def f(x):
    '''计算y'''
    y = x**2 * t.exp(x)
    return y

def gradf(x):
    '''手动求导函数'''
    dx = 2*x*t.exp(x) + x**2*t.exp(x)
    return dx
"""),
        ("cell098_in99", """x = t.randn(3,4, requires_grad = True)
y = f(x)
y
"""),
        ("cell099_in100", """y.backward(t.ones(y.size())) # gradient形状与y一致
x.grad
"""),
        ("cell100_in101", """# autograd的计算结果与利用公式手动计算的结果一致
gradf(x)
"""),
        ("cell101_in102", """x = t.ones(1)
b = t.rand(1, requires_grad = True)
w = t.rand(1, requires_grad = True)
y = w * x # 等价于y=w.mul(x)
z = y + b # 等价于z=y.add(b)

x.requires_grad, b.requires_grad, w.requires_grad
"""),
        ("cell102_in103", """# 虽然未指定y.requires_grad为True，但由于y依赖于需要求导的w
# 故而y.requires_grad为True
y.requires_grad
"""),
        ("cell103_in104", """# grad_fn可以查看这个Tensor的反向传播函数，
# z是add函数的输出，所以它的反向传播函数是AddBackward
z.grad_fn
"""),
        ("cell104_in105", """# next_functions保存grad_fn的输入，是一个tuple，tuple的元素也是Function
# 第一个是y，它是乘法(mul)的输出，所以对应的反向传播函数y.grad_fn是MulBackward
# 第二个是b，它是叶子节点，由用户创建，grad_fn为None，但是有
z.grad_fn.next_functions
"""),
        ("cell105_in106", """# 第一个是w，叶子节点，需要求导，梯度是累加的
# 第二个是x，叶子节点，不需要求导，所以为None
y.grad_fn.next_functions
"""),
        ("cell106_in107", """# 叶子节点的grad_fn是None
w.grad_fn,x.grad_fn
"""),
        ("cell107_in108", """# 使用retain_graph来保存buffer
z.backward(retain_graph=True)
w.grad
"""),
        ("cell108_in109", """# 多次反向传播，梯度累加，这也就是w中AccumulateGrad标识的含义
z.backward()
w.grad
"""),
        ("cell109_in110", """def abs(x):
    if x.data[0]>0: return x
    else: return -x
x = t.ones(1,requires_grad=True)
y = abs(x)
y.backward()
x.grad
"""),
        ("cell110_in111", """def f(x):
    result = 1
    for ii in x:
        if ii.item()>0: result=ii*result
    return result
x = t.arange(-2,4).float().requires_grad_()
y = f(x) # y = x[3]*x[4]*x[5]
y.backward()
x.grad
"""),
        ("cell111_in112", """x = t.ones(1, requires_grad=True)
w = t.rand(1, requires_grad=True)
y = x * w
# y依赖于w，而w.requires_grad = True
x.requires_grad, w.requires_grad, y.requires_grad
"""),
        ("cell112_in113", """with t.no_grad():
    x = t.ones(1)
    w = t.rand(1, requires_grad = True)
    y = x * w
# y依赖于w和x，虽然w.requires_grad = True，但是y的requires_grad依旧为False
x.requires_grad, w.requires_grad, y.requires_grad
"""),
        ("cell113_in114", """t.set_grad_enabled(False) # 更改了默认设置
x = t.ones(1)
w = t.rand(1, requires_grad = True)
y = x * w
# y依赖于w和x，虽然w.requires_grad = True，但是y的requires_grad依旧为False
x.requires_grad, w.requires_grad, y.requires_grad
"""),
        ("cell114_in115", """# 恢复默认配置
t.set_grad_enabled(True)
"""),
        ("cell115_in116", """a = t.ones(3,4,requires_grad=True)
b = t.ones(3,4,requires_grad=True)
c = a * b

a.data # 还是一个Tensor
"""),
        ("cell116_in117", """a.data.requires_grad # 已经独立于计算图之外了
"""),
        ("cell117_in118", """x = t.ones(3, requires_grad=True)
w = t.rand(3, requires_grad=True)
y = x * w
# y依赖于w，而w.requires_grad = True
z = y.sum()
x.requires_grad, w.requires_grad, y.requires_grad
"""),
        ("cell118_in119", """# 非叶子节点grad计算完之后自动清空，y.grad是None
z.backward()
(x.grad, w.grad, y.grad)
"""),
        ("cell119_in120", """# 第一种方法：使用grad获取中间变量的梯度
x = t.ones(3, requires_grad=True)
w = t.rand(3, requires_grad=True)
y = x * w
z = y.sum()
# z对y的梯度，隐式调用backward()
t.autograd.grad(z, y)
"""),
        ("cell120_in121", """# 第二种方法：使用hook
# hook是一个函数，输入是梯度，不应该有返回值
def variable_hook(grad):
    print('y的梯度：',grad)

x = t.ones(3, requires_grad=True)
w = t.rand(3, requires_grad=True)
y = x * w
# 注册hook
hook_handle = y.register_hook(variable_hook)
z = y.sum()
z.backward()

# 除非你每次都要用hook，否则用完之后记得移除hook
hook_handle.remove()
"""),
        ("cell121_in122", """from torch.autograd import Function
class MultiplyAdd(Function):
                                                            
    @staticmethod
    def forward(ctx, w, x, b):                              
        ctx.save_for_backward(w,x)
        output = w * x + b
        return output
        
    @staticmethod
    def backward(ctx, grad_output):                         
        w,x = ctx.saved_tensors
        grad_w = grad_output * x
        grad_x = grad_output * w
        grad_b = grad_output * 1
        return grad_w, grad_x, grad_b
"""),
        ("cell122_in123", """x = t.ones(1)
w = t.rand(1, requires_grad = True)
b = t.rand(1, requires_grad = True)
# 开始前向传播
z = MultiplyAdd.apply(w, x, b)
# 开始反向传播
z.backward()

# x不需要求导，中间过程还是会计算它的导数，但随后被清空
x.grad, w.grad, b.grad
"""),
        ("cell123_in124", """x = t.ones(1)
w = t.rand(1, requires_grad = True)
b = t.rand(1, requires_grad = True)
#print('开始前向传播')
z = MultiplyAdd.apply(w,x,b)
#print('开始反向传播')

# 调用MultiplyAdd.backward
# 输出grad_w, grad_x, grad_b
print(z.grad_fn)
z.grad_fn.apply(t.ones(1))
"""),
        ("cell124_in125", """import torch as t
%matplotlib inline
from matplotlib import pyplot as plt
from IPython import display 
import numpy as np
"""),
        ("cell125_in126", """# 设置随机数种子，以保证结果可复现
t.manual_seed(1000) 

def get_fake_data(batch_size=8):
    ''' 产生随机数据：y = x * 2 + 3，加上了一些噪声'''
    x = t.rand(batch_size,1) * 5
    y = x * 2 + 3 + t.randn(batch_size, 1)
    return x, y
"""),
        ("cell126_in127", """# 来看看产生x-y分布是什么样的
x, y = get_fake_data()
plt.scatter(x.squeeze().numpy(), y.squeeze().numpy())
"""),
        ("cell127_in128", """# 随机初始化参数
w = t.rand(1,1, requires_grad=True)
b = t.zeros(1,1, requires_grad=True)
losses = np.zeros(500)

lr =0.005 # 学习率

for ii in range(500):
    x, y = get_fake_data(batch_size=32)
    
    # forward：计算loss
    y_pred = x.mm(w) + b.expand_as(y)
    loss = 0.5 * (y_pred - y) ** 2
    loss = loss.sum()
    losses[ii] = loss.item()
    
    # backward：自动计算梯度
    loss.backward()
    
    # 更新参数
    w.data.sub_(lr * w.grad.data)
    b.data.sub_(lr * b.grad.data)
    
    # 梯度清零
    w.grad.data.zero_()
    b.grad.data.zero_()
    
    if ii%50 ==0:
        # 画图
        display.clear_output(wait=True)
        x = t.arange(0, 6).float().view(-1, 1)
        y = x.mm(w.data) + b.data.expand_as(x)
        plt.plot(x.numpy(), y.numpy()) # predicted
        
        x2, y2 = get_fake_data(batch_size=20) 
        plt.scatter(x2.numpy(), y2.numpy()) # true data
        
        plt.xlim(0,5)
        plt.ylim(0,13)   
        plt.show()
        plt.pause(0.5)
        
print(w.item(), b.item())
"""),
        ("cell128_in129", """plt.plot(losses)
plt.ylim(5,50)
"""),
    ],
}
