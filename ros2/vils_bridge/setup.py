from glob import glob

from setuptools import setup

package_name = 'vils_bridge'

setup(
    name=package_name,
    version='0.1.0',
    packages=[package_name],
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        ('share/' + package_name + '/launch', glob('launch/*.launch.py')),
        ('share/' + package_name + '/config', glob('config/*.yaml')),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='VILS maintainers',
    maintainer_email='maintainers@example.com',
    description='VILS <-> ROS 2 bridge',
    license='MIT',
    tests_require=['pytest'],
    entry_points={'console_scripts': ['vils_bridge = vils_bridge.node:main']},
)
